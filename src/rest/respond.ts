/** Renders errors as spec §7 bodies: `{message}`, or `{message, errors}` for 422. */
import { Response } from 'express';
import { GraphQLError } from 'graphql';
import { AppError } from '../common/errors';
import { Logger } from '../common/logger';
import { toAppError } from '../common/classify-error';
import { FieldRenamer, renameKeysOnly } from './field-names';

export interface ErrorRendering {
  development: boolean;
  logger: Logger;
  /** Field names as REST clients send them (src/rest/field-names.ts). */
  renameFields?: FieldRenamer;
}

export function sendError(res: Response, error: unknown, opts: ErrorRendering): void {
  const appError = toAppError(error);
  if (!appError) {
    opts.logger.error({ err: error }, 'unhandled error');
    const cause = error instanceof GraphQLError && error.originalError ? error.originalError : error;
    const failure = cause instanceof Error ? cause : new Error(String(cause));
    res.status(500).json(
      opts.development
        ? { message: failure.message, exception: failure.name, trace: failure.stack?.split('\n').map((l) => l.trim()) }
        : { message: 'Server Error' },
    );
    return;
  }
  sendAppError(res, appError, opts.renameFields);
}

export function sendAppError(res: Response, error: AppError, renameFields: FieldRenamer = renameKeysOnly): void {
  if (error.details.retryAfter !== undefined) res.setHeader('Retry-After', String(error.details.retryAfter));
  if (error.code === 'VALIDATION') {
    res.status(422).json({ message: error.message, errors: renameFields(error.details.fields ?? {}) });
    return;
  }
  res.status(error.status).json({ message: error.message });
}
