import { validationFailed } from './errors';

/**
 * Applies a partial update: fields left out are kept, `null` clears a field only where
 * `nullable` allows it (elsewhere it is a 422 naming the field).
 */
export function applyPatch<T extends object, K extends keyof T & string>(
  target: T,
  patch: Partial<Pick<T, K>>,
  fields: readonly K[],
  nullable: readonly K[] = [],
): void {
  const errors: Record<string, string[]> = {};
  for (const field of fields) {
    const value = patch[field];
    if (value === undefined) continue;
    if (value === null && !nullable.includes(field)) {
      errors[field] = [`${field} cannot be null`];
      continue;
    }
    target[field] = value;
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/** Trims a string, keeping `null` (clear) and `undefined` (leave unchanged) as they are. */
export const trimmed = <T extends string | null | undefined>(value: T): T => (typeof value === 'string' ? (value.trim() as T) : value);
