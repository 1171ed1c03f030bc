/**
 * REST clients name fields in snake_case (`menu_id`); services and GraphQL use the schema's
 * names (`menuId`). A 422 over REST renames both its keys and the field names its messages
 * mention, here and nowhere else, so no service has to know which way a request came in.
 */
import { GraphQLSchema, isInputObjectType, isObjectType } from 'graphql';
import { addFieldError, FieldErrors, fieldErrors } from '../common/errors';

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A camelCase word: the only words snake_case changes. */
const CAMEL_WORD = /\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g;

export type FieldRenamer = (fields: FieldErrors) => FieldErrors;

/**
 * Renames, in keys segment by segment (`items.0.productId` -> `items.0.product_id`) and in
 * messages word by word, every camelCase name that is an input field or argument of the schema
 * (so a quoted product or option name, or an unknown key the client sent, is left as it is).
 */
export function restFieldRenamer(schema: GraphQLSchema): FieldRenamer {
  const names = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (isInputObjectType(type)) for (const name of Object.keys(type.getFields())) names.add(name);
    if (isObjectType(type)) for (const field of Object.values(type.getFields())) for (const arg of field.args) names.add(arg.name);
  }
  const renameWords = (text: string) => text.replace(CAMEL_WORD, (word) => (names.has(word) ? snakeCase(word) : word));
  return (fields) => {
    const renamed = fieldErrors();
    for (const [path, messages] of Object.entries(fields)) {
      // Only the schema's names are renamed: a key the client sent that the schema does not know is named as sent.
      const restPath = path
        .split('.')
        .map((segment) => (names.has(segment) ? snakeCase(segment) : segment))
        .join('.');
      addFieldError(renamed, restPath, ...messages.map(renameWords));
    }
    return renamed;
  };
}

/** Without a schema (errors outside any route): keys only. */
export const renameKeysOnly: FieldRenamer = (fields) =>
  Object.fromEntries(Object.entries(fields).map(([path, messages]) => [path.split('.').map(snakeCase).join('.'), messages]));
