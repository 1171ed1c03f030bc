/**
 * type-graphql's argument validation (class-validator, VALIDATE_SETTINGS) with a fast path for
 * the read paths' flat argument classes (nearby, home, search): the class's rules are read once
 * from class-validator's metadata and a value that passes every one of them is let through
 * without class-validator's executor (its per-call metadata walk and error objects were ~2 % of
 * nearby's CPU). Anything else — a value that breaks a rule, a class with a rule kind the fast
 * path does not know (nested, async, per-item, groups) — runs class-validator exactly as
 * type-graphql runs it, and throws its error: every answer, 422s included, is unchanged.
 * docs/decisions.md "City scale: nearby's CPU per request".
 */
import { getMetadataStorage, ValidationArguments, ValidationTypes, validateOrReject } from 'class-validator';
import { ArgumentValidationError, ValidatorFn } from 'type-graphql';
import { VALIDATE_SETTINGS } from './validation';

/** The options type-graphql's validateArg gives class-validator with VALIDATE_SETTINGS. */
const OPTIONS = { ...VALIDATE_SETTINGS, skipMissingProperties: true };

type Check = (object: Record<string, unknown>) => boolean;
/** An argument class (class-validator's metadata is keyed by constructor). */
type ArgumentClass = abstract new (...args: never[]) => unknown;

/** Per class: its rules as one check (true: no rule broken), or null (class-validator decides every value). */
const checks = new Map<ArgumentClass, Check | null>();

/**
 * class-validator's executor on a value of a class whose rules are all conditions and
 * synchronous custom constraints, for the options above (no groups, no whitelist): a property
 * whose condition fails, or that is null or undefined, is skipped; otherwise each constraint's
 * own `validate` is called as the executor calls it. Null when the class has any other rule
 * kind, or none (forbidUnknownValues refuses that value: class-validator answers).
 */
export function compileRules(target: ArgumentClass): Check | null {
  const storage = getMetadataStorage();
  const metadatas = storage.getTargetValidationMetadatas(target, '', false, false);
  if (metadatas.length === 0) return null;
  const properties: { name: string; conditions: ((object: object, value: unknown) => boolean)[]; rules: Check[] }[] = [];
  for (const [name, list] of Object.entries(storage.groupByPropertyName(metadatas))) {
    const property = { name, conditions: [] as ((object: object, value: unknown) => boolean)[], rules: [] as Check[] };
    for (const metadata of list) {
      if (metadata.each || metadata.validateIf || metadata.groups?.length) return null;
      if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        property.conditions.push(metadata.constraints[0] as (object: object, value: unknown) => boolean);
        continue;
      }
      if (metadata.type !== ValidationTypes.CUSTOM_VALIDATION) return null;
      for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
        if (constraint.async) return null;
        property.rules.push((object) => {
          const value = object[name];
          const args: ValidationArguments = {
            targetName: object.constructor?.name,
            property: name,
            object,
            value,
            constraints: metadata.constraints,
          };
          // A constraint answering a promise is left to class-validator.
          return constraint.instance.validate(value, args) === true;
        });
      }
    }
    properties.push(property);
  }
  return (object) => {
    for (const { name, conditions, rules } of properties) {
      const value = object[name];
      if (!conditions.every((condition) => condition(object, value))) continue;
      if (value === null || value === undefined) continue;
      if (!rules.every((rule) => rule(object))) return false;
    }
    return true;
  };
}

/** `@Args({ validateFn: argumentRules })`: the fast path, else type-graphql's own validation. */
export const argumentRules: ValidatorFn = async (argument) => {
  const value: unknown = argument;
  if (value === null || typeof value !== 'object') return;
  const target = value.constructor as ArgumentClass;
  let check = checks.get(target);
  // No constructor (a null-prototype object): class-validator answers, and type-graphql wraps what it throws.
  if (check === undefined) checks.set(target, (check = Array.isArray(value) || typeof target !== 'function' ? null : compileRules(target)));
  if (check?.(value as Record<string, unknown>)) return;
  try {
    if (Array.isArray(value)) {
      const items = (value as unknown[]).filter((item): item is object => item !== null && typeof item === 'object');
      await Promise.all(items.map((item) => validateOrReject(item, OPTIONS)));
    } else await validateOrReject(value, OPTIONS);
  } catch (error) {
    throw new ArgumentValidationError(error as never);
  }
};
