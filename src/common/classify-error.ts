/**
 * One classification of every error, shared by /graphql, REST and websockets: AppError as is,
 * argument validation as VALIDATION with dotted field paths, anything else INTERNAL (logged,
 * and masked outside development).
 */
import { GraphQLError } from 'graphql';
import { ArgumentValidationError } from 'type-graphql';
import { AppError } from './errors';
import { databaseFault } from './database-faults';
import { flattenValidationErrors } from './validation';

export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof ArgumentValidationError) {
    const fields = flattenValidationErrors(error.extensions.validationErrors);
    return new AppError('VALIDATION', 'The given data was invalid.', { fields });
  }
  if (error instanceof GraphQLError && error.originalError) return toAppError(error.originalError);
  // A statement or lock timeout, a full pool, an unreachable database: 503, retry.
  return databaseFault(error);
}
