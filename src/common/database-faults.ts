/**
 * Database faults a caller should retry rather than read as a server bug: a statement or lock
 * wait cancelled by its timeout, no pooled connection free in time, a transaction ended by the
 * idle timeout, the server unreachable. They answer 503 `{message}` with Retry-After.
 */
import { AppError } from './errors';

/** SQLSTATEs: query_canceled (statement_timeout), lock_not_available (lock_timeout), idle-in-transaction timeout. */
const BUSY_STATES = new Set(['57014', '55P03', '25P03']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03']);

export const RETRY_AFTER_SECONDS = 2;

export function databaseFault(error: unknown): AppError | undefined {
  for (
    let cause = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    cause && depth < 4;
    depth++
  ) {
    const code = typeof cause.code === 'string' ? cause.code : undefined;
    const busy =
      (code && (BUSY_STATES.has(code) || UNREACHABLE.has(code))) ||
      cause.name === 'KnexTimeoutError' ||
      (typeof cause.message === 'string' &&
        // The ORM's pool (knex) and the read pool (pg's) when no connection came free in time, or
        // a new one of the read pool did not open in time.
        (cause.message.startsWith('Knex: Timeout acquiring a connection') ||
          cause.message === 'timeout exceeded when trying to connect' ||
          cause.message === 'Connection terminated due to connection timeout'));
    if (busy) return new AppError('UNAVAILABLE', 'The service is busy. Please try again shortly.', { retryAfter: RETRY_AFTER_SECONDS });
    cause = cause.cause as typeof cause;
  }
  return undefined;
}
