/**
 * What the body parser's refusals answer (issue 29, item 3): a body the service cannot read is
 * the client's mistake, answered 415 or 400 with `{message}` and logged as a client error,
 * never a 500 with a stack (docs/decisions.md "Request bodies the parser refuses").
 */
import type { Request } from 'express';
import { AppError } from './errors';

/** The Content-Encodings the JSON parser decodes. */
const DECODED = ['gzip', 'deflate', 'br'];

/** The AppError for a body-parser failure, or undefined when the error is not one. */
export function bodyRefusal(error: unknown, req: Request, bodyLimit: string): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status, expose } = error as { type?: unknown; status?: unknown; expose?: unknown };
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  switch (type) {
    case 'entity.parse.failed':
      return new AppError('BAD_REQUEST', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${bodyLimit}.`);
    case 'encoding.unsupported':
      return new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `The request body's Content-Encoding "${shown(encoding)}" is not supported: send it uncompressed or as ${DECODED.join(', ')}.`,
      );
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 JSON.');
    case 'request.size.invalid':
      return new AppError('BAD_REQUEST', 'The request body does not match its Content-Length.');
    case 'request.aborted':
      return new AppError('BAD_REQUEST', 'The request body was cut off.');
  }
  // A body whose bytes do not decode with its Content-Encoding (zlib's error, wrapped as a 400).
  if (status === 400 && expose === true && encoding !== 'identity') {
    return new AppError('BAD_REQUEST', `The request body could not be decoded as ${shown(encoding)}.`);
  }
  if (typeof status === 'number' && status >= 400 && status < 500 && expose === true) {
    return new AppError('BAD_REQUEST', 'The request body could not be read.');
  }
  return undefined;
}

/** A header echoed back: at most 32 visible ASCII characters. */
function shown(value: string): string {
  const visible = value.replace(/[^\x21-\x7e]/g, '?');
  return visible.length > 32 ? `${visible.slice(0, 32)}…` : visible;
}
