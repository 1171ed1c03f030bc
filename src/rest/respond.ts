/** Renders errors as spec §7 bodies: `{message}`, or `{message, errors}` for 422. */
import { Response } from 'express';
import { GraphQLError } from 'graphql';
import { AppError, FieldErrors } from '../common/errors';
import { Logger } from '../common/logger';
import { toAppError } from '../graphql/errors';
import { snakeCase } from './variables';

/** Field paths from services use GraphQL names; REST clients know the snake_case ones. */
function restFields(fields: FieldErrors): FieldErrors {
  const renamed: FieldErrors = {};
  for (const [path, messages] of Object.entries(fields)) {
    const restPath = path.split('.').map(snakeCase).join('.');
    renamed[restPath] = messages.map((m) => m.split(path).join(restPath));
  }
  return renamed;
}

export function sendError(res: Response, error: unknown, opts: { development: boolean; logger: Logger }): void {
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
  sendAppError(res, appError);
}

export function sendAppError(res: Response, error: AppError): void {
  if (error.details.retryAfter !== undefined) res.setHeader('Retry-After', String(error.details.retryAfter));
  if (error.code === 'VALIDATION') {
    res.status(422).json({ message: error.message, errors: restFields(error.details.fields ?? {}) });
    return;
  }
  res.status(error.status).json({ message: error.message });
}
