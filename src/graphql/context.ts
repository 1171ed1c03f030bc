/**
 * The request context every resolver and service receives first: one forked EntityManager,
 * the authenticated viewer (if any), the request id and the shared services.
 */
import { randomUUID } from 'node:crypto';
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../common/errors';
import { Logger } from '../common/logger';
import { Services } from '../services';
import { Viewer } from '../modules/auth/token.service';
import { createLoaders, Loaders } from './loaders';

export interface Context {
  em: EntityManager;
  requestId: string;
  ip: string;
  /** Set when a valid, unrevoked token came with the request. */
  viewer: Viewer | null;
  /** Why a presented token was refused; thrown by operations that need a viewer. */
  authError?: AppError;
  logger: Logger;
  services: Services;
  /** Per-request batch loaders over `em` (nested lists cost one statement per level). */
  loaders: Loaders;
}

export interface ContextSource {
  em: EntityManager;
  services: Services;
  logger: Logger;
  ip: string;
  authorization?: string;
  requestId?: string;
}

/** Request ids from a caller are kept only when they look like ids (no log injection). */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export async function createContext(source: ContextSource): Promise<Context> {
  const requestId = source.requestId && REQUEST_ID.test(source.requestId) ? source.requestId : randomUUID();
  const em = source.em.fork();
  const context: Context = {
    em,
    requestId,
    ip: source.ip,
    viewer: null,
    logger: source.logger.child({ requestId }),
    services: source.services,
    loaders: createLoaders(em),
  };
  if (source.authorization) {
    try {
      context.viewer = await source.services.tokens.authenticate(em, source.authorization);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      context.authError = error;
    }
  }
  return context;
}
