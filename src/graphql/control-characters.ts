/**
 * One rule for every string a caller sends, on every field of every way in (REST runs the same
 * resolvers): NUL and the other control characters are refused with 422 naming the field. They
 * have no business in names, searches, slugs, tokens, addresses or codes, PostgreSQL cannot
 * store NUL in text (it failed as a 500), and they forge lines in logs. Tab, line feed and
 * carriage return stay allowed (instructions and descriptions have lines).
 */
import { getMetadataStorage, MiddlewareFn, UseMiddleware } from 'type-graphql';
import { FieldErrors, validationFailed } from '../common/errors';

// eslint-disable-next-line no-control-regex -- finding control characters is this rule's purpose
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** Field paths follow the validation errors' convention: an input object's own fields, else the argument. */
export function controlCharacterErrors(args: Record<string, unknown>): FieldErrors | undefined {
  const fields: FieldErrors = {};
  const visit = (value: unknown, path: string) => {
    if (typeof value === 'string') {
      if (CONTROL.test(value)) fields[path] = [`The ${path} field must not contain control characters.`];
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, `${path}.${i}`));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, path ? `${path}.${key}` : key);
    }
  };
  for (const [name, value] of Object.entries(args)) {
    const isInputObject = value !== null && typeof value === 'object' && !Array.isArray(value);
    visit(value, isInputObject ? '' : name);
  }
  return Object.keys(fields).length > 0 ? fields : undefined;
}

export const refuseControlCharacters: MiddlewareFn = ({ args }, next) => {
  const fields = controlCharacterErrors(args);
  if (fields) throw validationFailed(fields);
  return next();
};

/** Resolver methods already given the rule (by class): schemas are built more than once (tests). */
const guarded = new Map<object, Set<string>>();

/**
 * Puts the rule on every resolver that takes arguments, where a global middleware would also
 * wrap each plain field of each row (an async middleware dispatch per scalar): fields without
 * arguments keep a plain property read (docs/decisions.md "Input: control characters, Idempotency-Key,
 * token claims"). Declared like
 * `@UseMiddleware`, so it runs where a global one did: after `@Authorized()`, before the
 * arguments' class-validator rules. Called before each schema build; idempotent.
 */
export function refuseControlCharactersInArguments(): void {
  for (const param of getMetadataStorage().params) {
    const takesArguments = param.kind === 'arg' || param.kind === 'args' || (param.kind === 'custom' && param.options.arg !== undefined);
    const methods = guarded.get(param.target) ?? guarded.set(param.target, new Set()).get(param.target)!;
    if (!takesArguments || methods.has(param.methodName)) continue;
    methods.add(param.methodName);
    UseMiddleware(refuseControlCharacters)(param.target.prototype as object, param.methodName);
  }
}
