/**
 * The class-validator rules of input classes, run the same way everywhere: by type-graphql
 * on every argument (src/schema.ts), by the REST rule pass, and by services that
 * report rule and database problems together (checkout).
 */
import { validate } from 'class-validator';
import type { ValidationError } from 'class-validator';
import { FieldErrors } from './errors';

/** Without target/value off, errors echo the whole input back to the caller. */
export const VALIDATE_SETTINGS = { forbidUnknownValues: true, validationError: { target: false, value: false } };

/** class-validator's tree -> `{ "items.0.quantity": ["..."] }`. */
export function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldErrors {
  const fields: FieldErrors = {};
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints) fields[path] = Object.values(error.constraints);
    Object.assign(fields, flattenValidationErrors(error.children ?? [], path));
  }
  return fields;
}

/** The rule problems of an input instance, keyed by dotted path (type-graphql's settings). */
export async function ruleProblems(value: object): Promise<FieldErrors> {
  return flattenValidationErrors(await validate(value, { ...VALIDATE_SETTINGS, skipMissingProperties: true }));
}
