/**
 * One classification of every error, shared by /graphql, REST and websockets: AppError as is,
 * argument validation as VALIDATION with dotted field paths, anything else INTERNAL (logged,
 * and masked outside development).
 */
import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { ArgumentValidationError } from 'type-graphql';
import { AppError } from '../common/errors';
import { flattenValidationErrors } from '../common/validation';

export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof ArgumentValidationError) {
    const fields = flattenValidationErrors(error.extensions.validationErrors);
    return new AppError('VALIDATION', 'The given data was invalid.', { fields });
  }
  if (error instanceof GraphQLError && error.originalError) return toAppError(error.originalError);
  return undefined;
}

/** Apollo's formatError: codes in extensions, internal errors masked outside development. */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown, development: boolean): GraphQLFormattedError {
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
  const original = error instanceof GraphQLError ? error.originalError : undefined;
  // Apollo relabels every validation error GRAPHQL_VALIDATION_FAILED; a rule's own code (QUERY_TOO_DEEP) wins.
  if (original instanceof GraphQLError && typeof original.extensions.code === 'string') {
    return { ...formatted, extensions: { ...formatted.extensions, code: original.extensions.code } };
  }
  if (!original || original instanceof GraphQLError) return formatted;
  if (development) return formatted;
  return { message: 'Internal server error.', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL' } };
}
