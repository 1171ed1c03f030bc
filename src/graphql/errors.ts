/** GraphQL's rendering of the one error classification (common/classify-error.ts). */
import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { toAppError } from '../common/classify-error';

export { toAppError };
import { MAX_MESSAGE_LENGTH, tokenLimitError, withoutSuggestions } from './limits';

export interface FormatOptions {
  /** Internal errors keep their message (and Apollo its trace). */
  development: boolean;
  /** Production: validation messages lose graphql-js's "Did you mean …?" suggestions. */
  hideSuggestions: boolean;
}

/** Apollo's formatError (and the websocket's): codes in extensions, internal errors masked outside development. */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown, opts: FormatOptions): GraphQLFormattedError {
  const appError = toAppError(error);
  if (appError) {
    return {
      message: appError.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: {
        code: appError.code,
        ...(appError.details.fields && { fields: appError.details.fields }),
        ...(appError.details.retryAfter !== undefined && { retryAfter: appError.details.retryAfter }),
      },
    };
  }
  // Errors GraphQL itself raises about the document (syntax, validation) are the client's.
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : undefined;
  const limit = original instanceof GraphQLError ? tokenLimitError(original) : undefined;
  if (limit) return { message: limit.message, extensions: limit.extensions };
  const message = bounded(opts.hideSuggestions ? withoutSuggestions(formatted.message) : formatted.message);
  // Apollo relabels every validation error GRAPHQL_VALIDATION_FAILED; a rule's own code (QUERY_TOO_DEEP) wins.
  if (original instanceof GraphQLError && original !== error && typeof original.extensions.code === 'string') {
    return { ...formatted, message, extensions: { ...formatted.extensions, ...original.extensions } };
  }
  if (!original || original instanceof GraphQLError) return { ...formatted, message };
  if (opts.development) return formatted;
  return { message: 'Internal server error.', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL' } };
}

/** A message over MAX_MESSAGE_LENGTH keeps its start and its end (a coercion error names the field last), the echoed value between cut. */
function bounded(message: string): string {
  if (message.length <= MAX_MESSAGE_LENGTH) return message;
  const half = (MAX_MESSAGE_LENGTH - 3) / 2;
  return `${message.slice(0, Math.floor(half))} … ${message.slice(-Math.ceil(half))}`;
}
