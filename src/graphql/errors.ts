/**
 * One classification of every error, shared by /graphql, REST and websockets: AppError as is,
 * argument validation as VALIDATION with dotted field paths, anything else INTERNAL (logged,
 * and masked outside development).
 */
import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { ArgumentValidationError } from 'type-graphql';
import { AppError } from '../common/errors';
import { flattenValidationErrors } from '../common/validation';
import { databaseFault } from '../db/faults';
import { tokenLimitError, withoutSuggestions } from './limits';

export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof ArgumentValidationError) {
    const fields = flattenValidationErrors(error.extensions.validationErrors);
    return new AppError('VALIDATION', 'The given data was invalid.', { fields });
  }
  if (error instanceof GraphQLError && error.originalError) return toAppError(error.originalError);
  return databaseFault(error);
}

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
  const message = opts.hideSuggestions ? withoutSuggestions(formatted.message) : formatted.message;
  // Apollo relabels every validation error GRAPHQL_VALIDATION_FAILED; a rule's own code (QUERY_TOO_DEEP) wins.
  if (original instanceof GraphQLError && original !== error && typeof original.extensions.code === 'string') {
    return { ...formatted, message, extensions: { ...formatted.extensions, ...original.extensions } };
  }
  if (!original || original instanceof GraphQLError) return { ...formatted, message };
  if (opts.development) return formatted;
  return { message: 'Internal server error.', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL' } };
}
