/**
 * The one error family. Services throw AppError subclasses; GraphQL carries `code` in
 * `extensions.code`, REST renders the spec's bodies. Anything else is an internal error.
 */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'VALIDATION'
  | 'INVALID_CODE'
  | 'RATE_LIMITED'
  | 'UPSTREAM_FAILED'
  | 'BAD_REQUEST'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNAVAILABLE'
  | 'INTERNAL';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  VALIDATION: 422,
  INVALID_CODE: 400,
  RATE_LIMITED: 429,
  UPSTREAM_FAILED: 500,
  BAD_REQUEST: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** Field path (dotted, e.g. `items.0.quantity`) -> messages. */
export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra facts a client may act on, e.g. `retryAfter` seconds for RATE_LIMITED. */
    readonly details: { retryAfter?: number; fields?: FieldErrors } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

export const unauthenticated = (message = 'Unauthenticated.') => new AppError('UNAUTHENTICATED', message);
export const forbidden = (message = 'This action is unauthorized.') => new AppError('FORBIDDEN', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const rateLimited = (message: string, retryAfter?: number) => new AppError('RATE_LIMITED', message, { retryAfter });

/** The longest key a 404 repeats: a slug or token is far shorter; a longer key is the caller's own input echoed back. */
const SHOWN_KEY_CHARACTERS = 64;

/**
 * 404 naming the model and the id, as spec §7 asks: "No query results for model [Store] 12". A key
 * longer than any real one (a 5 000-character slug) is cut to its first SHOWN_KEY_CHARACTERS
 * characters and an ellipsis, by code point so an emoji is never split.
 */
export const notFound = (model: string, id: string | number) =>
  new AppError('NOT_FOUND', `No query results for model [${model}] ${shownKey(String(id))}`);

function shownKey(key: string): string {
  if (key.length <= SHOWN_KEY_CHARACTERS) return key;
  const characters = Array.from(key);
  return characters.length <= SHOWN_KEY_CHARACTERS ? key : `${characters.slice(0, SHOWN_KEY_CHARACTERS).join('')}…`;
}

export const validationFailed = (fields: FieldErrors, message = 'The given data was invalid.') =>
  new AppError('VALIDATION', message, { fields });

/** One-field shorthand: `invalidField('phoneNumber', 'The phone number is not valid.')`. */
export const invalidField = (field: string, message: string) => validationFailed({ [field]: [message] });
