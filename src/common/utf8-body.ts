/**
 * JSON bodies whose bytes are not UTF-8 (issue 29, item 4). The JSON parser would decode each
 * invalid byte as U+FFFD, the same character a client may send on purpose, and the answer would
 * echo text the client never wrote. Instead each invalid byte becomes a lone surrogate
 * (U+DC80–U+DCFF, as Python's "surrogateescape"), so the one rule for every string
 * (graphql/control-characters.ts) refuses the field that carried it with 422, by name.
 * Valid bodies (all but a few) are only checked (`isUtf8`, native) and parsed once.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from './errors';

const NOT_UTF8 = Symbol('body bytes that are not UTF-8');
type Marked = IncomingMessage & { [NOT_UTF8]?: Buffer };

/** express.json's `verify`: keeps the bytes of a body that is not UTF-8 for `reparseNotUtf8`. */
export function markNotUtf8(req: IncomingMessage, _res: unknown, body: Buffer, encoding: string): void {
  if (encoding === 'utf-8' && !isUtf8(body)) (req as Marked)[NOT_UTF8] = body;
}

/** After express.json: a marked body is parsed again with each invalid byte as a lone surrogate. */
export function reparseNotUtf8(req: Request, _res: Response, next: NextFunction): void {
  const bytes = (req as Marked)[NOT_UTF8];
  if (!bytes) return next();
  try {
    req.body = JSON.parse(escapeInvalidBytes(bytes)) as unknown;
  } catch {
    return next(new AppError('BAD_REQUEST', 'The request body is not valid JSON.'));
  }
  next();
}

/** UTF-8 decoding where a byte that starts no valid sequence becomes U+DC00 + byte. */
export function escapeInvalidBytes(bytes: Buffer): string {
  let text = '';
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    text += bytes.toString('utf8', start, i) + String.fromCharCode(0xdc00 + bytes[i]);
    i += 1;
    start = i;
  }
  return text + bytes.toString('utf8', start, bytes.length);
}

/** The length of the valid UTF-8 sequence at `i`, or 0. */
function sequenceLength(bytes: Buffer, i: number): number {
  const lead = bytes[i];
  const length =
    lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length <= 1) return length;
  return i + length <= bytes.length && isUtf8(bytes.subarray(i, i + length)) ? length : 0;
}
