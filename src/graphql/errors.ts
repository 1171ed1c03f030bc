/** GraphQL's rendering of the one error classification (common/classify-error.ts). */
import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { toAppError } from '../common/classify-error';

export { toAppError };

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
