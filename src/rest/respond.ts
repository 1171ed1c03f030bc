/** Renders errors as spec §7 bodies: `{message}`, or `{message, errors}` for 422. */
import { Request, Response } from 'express';
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
    res
      .status(500)
      .json(
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

/** What Express's `res.send` makes of a JSON text's content type (`mime.contentType`, then `setCharset`). */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * `res.status(status).send(text)` for a JSON text when no Content-Type, Transfer-Encoding or ETag
 * is set yet (anything else goes to Express's `send` itself): the same headers, values and order
 * as Express 5's `send` (Content-Type with its charset, Content-Length, the app's ETag of the
 * bytes), the same 304 when the request is fresh, 204/304 without a body, HEAD without a body.
 * What it leaves out is Express's generic work for a body of unknown kind: four header reads,
 * the MIME lookup of the type, and parsing and formatting it again to add the charset
 * (docs/decisions.md "The gateway").
 */
export function sendJsonText(req: Request, res: Response, status: number, text: string): void {
  if (status === 205 || res.hasHeader('Content-Type') || res.hasHeader('Transfer-Encoding') || res.hasHeader('ETag')) {
    if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
    res.status(status).send(text);
    return;
  }
  res.status(status);
  const body = Buffer.from(text, 'utf8');
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', String(body.length));
  const etagFn = res.app.get('etag fn') as unknown;
  if (typeof etagFn === 'function') {
    const etag = (etagFn as (body: Buffer) => string | undefined)(body);
    if (etag) res.setHeader('ETag', etag);
  }
  // req.fresh reads the request's If-None-Match and If-Modified-Since: without them it is false.
  if ((req.headers['if-none-match'] || req.headers['if-modified-since']) && req.fresh) res.status(304);
  if (res.statusCode === 204 || res.statusCode === 304) {
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    if (req.method === 'HEAD') res.end();
    else res.end('', 'utf8');
    return;
  }
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}
