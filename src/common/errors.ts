/**
 * The one error family. Services throw AppError subclasses; GraphQL carries `code` in
 * `extensions.code`, REST renders the spec's bodies. Anything else is an internal error.
 */
import { rateLimitRefusals } from './metrics';

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
  | 'UNSUPPORTED_MEDIA_TYPE'
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
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** Field path (dotted, e.g. `items.0.quantity`) -> messages. */
export type FieldErrors = Record<string, string[]>;

/**
 * Adds a message under a path. The paths are the client's own keys (`__proto__`, `constructor`
 * included): `fieldErrors()` makes the map they go in, with no prototype for them to hit.
 */
export function addFieldError(errors: FieldErrors, path: string, ...messages: string[]): void {
  (Object.hasOwn(errors, path) ? errors[path] : (errors[path] = [])).push(...messages);
}

export const fieldErrors = (): FieldErrors => Object.create(null) as FieldErrors;

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
export const rateLimited = (message: string, retryAfter?: number) => {
  rateLimitRefusals.inc({ limit: 'request' });
  return new AppError('RATE_LIMITED', message, { retryAfter });
};

/** The longest key or path a 404 repeats: a slug or token is far shorter; a longer one is the caller's own input echoed back. */
const SHOWN_CHARACTERS = 64;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * What a 404 repeats of a key or path the caller sent: the first SHOWN_CHARACTERS characters as
 * a reader sees them (graphemes: a family or a flag emoji is never split) and an ellipsis.
 */
export function shownInput(input: string): string {
  if (input.length <= SHOWN_CHARACTERS) return input;
  const shown: string[] = [];
  for (const { segment } of graphemes.segment(input)) {
    if (shown.length === SHOWN_CHARACTERS) return `${shown.join('')}…`;
    shown.push(segment);
  }
  return input;
}

/** 404 naming the model and the id, as spec §7 asks: "No query results for model [Store] 12" (a key past any real one cut: shownInput). */
export const notFound = (model: string, id: string | number) =>
  new AppError('NOT_FOUND', `No query results for model [${model}] ${shownInput(String(id))}`);

/** 404 for a path no route answers (or whose parameter names nothing), the path cut like a key (shownInput). */
export const routeNotFound = (method: string, path: string) =>
  new AppError('NOT_FOUND', `The route ${method} ${shownInput(path)} could not be found.`);

export const validationFailed = (fields: FieldErrors, message = 'The given data was invalid.') =>
  new AppError('VALIDATION', message, { fields });

/** One-field shorthand: `invalidField('phoneNumber', 'The phone number is not valid.')`. */
export const invalidField = (field: string, message: string) => validationFailed({ [field]: [message] });
