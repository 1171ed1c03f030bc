/**
 * Turns path, query and body values into the variables a document declares, with the
 * messages of spec §7: `{ "items.0.quantity": ["The items.0.quantity must be at least 1."] }`.
 * Query, path and header values arrive as strings and are read by the declared type (Int,
 * Float, Boolean as 1/0/true/false). A JSON body carries its own types: an Int, Float or Boolean
 * there must be a JSON number or boolean, as over GraphQL (`"quantity": "2"` is 422 naming the
 * field; docs/decisions.md "Numbers sent as strings"). Input objects accept snake_case keys.
 */
import {
  GraphQLInputType,
  GraphQLScalarType,
  GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  typeFromAST,
  VariableDefinitionNode,
} from 'graphql';
import { addFieldError, fieldErrors } from '../common/errors';
import { snakeCase } from './field-names';

export function variableType(schema: GraphQLSchema, definition: VariableDefinitionNode): GraphQLInputType {
  return typeFromAST(schema, definition.type as never) as GraphQLInputType;
}

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** Where a value came from: text (path, query string, header) or a JSON body. */
export type ValueSource = 'text' | 'json';

export class VariableReader {
  readonly errors = fieldErrors();

  /** `undefined` result means "leave the variable out". */
  read(value: unknown, type: GraphQLInputType, path: string, source: ValueSource): unknown {
    if (isNonNullType(type)) {
      if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
        return this.fail(path, `The ${path} field is required.`);
      }
      return this.read(value, type.ofType, path, source);
    }
    if (value === undefined) return undefined;
    if (value === null) return null;
    if (isListType(type)) {
      const items = Array.isArray(value) ? value : typeof value === 'string' ? [value] : undefined;
      if (!items) return this.fail(path, `The ${path} must be an array.`);
      return items.map((item, i) => this.read(item, type.ofType, `${path}.${i}`, source) ?? null);
    }
    if (isInputObjectType(type)) {
      if (typeof value !== 'object' || Array.isArray(value)) return this.fail(path, `The ${path} must be an object.`);
      const given = value as Record<string, unknown>;
      const result: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(type.getFields())) {
        const rest = snakeCase(name);
        const read = this.read(given[rest] !== undefined ? given[rest] : given[name], field.type, path ? `${path}.${rest}` : rest, source);
        if (read !== undefined) result[name] = read;
      }
      return result;
    }
    if (isEnumType(type)) {
      if (typeof value === 'string' && type.getValue(value)) return value;
      return this.fail(
        path,
        `The ${path} must be one of: ${type
          .getValues()
          .map((v) => v.name)
          .join(', ')}.`,
      );
    }
    if (isScalarType(type)) return this.scalar(value, type, path, source);
    return value;
  }

  private scalar(value: unknown, type: GraphQLScalarType, path: string, source: ValueSource): unknown {
    // Only text is read as a number or boolean; a JSON string stays a string.
    const text = source === 'text' && typeof value === 'string' ? value.trim() : undefined;
    switch (type.name) {
      case 'Int':
        if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 2 ** 31 - 1) return value;
        if (text !== undefined && INTEGER.test(text) && Math.abs(Number(text)) <= 2 ** 31 - 1) return Number(text);
        return this.fail(path, `The ${path} must be an integer.`);
      case 'Float':
        if (typeof value === 'number' && Number.isFinite(value)) return value;
        // A finite number only: `1e999` reads as Infinity, which no Float can carry (it answered 500).
        if (text !== undefined && NUMBER.test(text) && Number.isFinite(Number(text))) return Number(text);
        return this.fail(path, `The ${path} must be a number.`);
      case 'Boolean':
        if (typeof value === 'boolean') return value;
        if (text === '1' || text === 'true') return true;
        if (text === '0' || text === 'false') return false;
        return this.fail(path, `The ${path} field must be true or false.`);
      case 'String':
      case 'ID':
        if (typeof value === 'string') return value;
        if (type.name === 'ID' && typeof value === 'number') return String(value);
        return this.fail(path, `The ${path} must be a string.`);
      default:
        try {
          type.parseValue(value);
          return value;
        } catch {
          return this.fail(path, `The ${path} is not a valid ${type.name}.`);
        }
    }
  }

  /** Records every key of `value` that its input type does not have (at any depth), by its path. */
  refuseUnknownKeys(value: unknown, type: GraphQLInputType, path: string): void {
    if (isNonNullType(type)) return this.refuseUnknownKeys(value, type.ofType, path);
    if (isListType(type)) {
      if (Array.isArray(value)) value.forEach((item, i) => this.refuseUnknownKeys(item, type.ofType, `${path}.${i}`));
      return;
    }
    if (!isInputObjectType(type) || typeof value !== 'object' || value === null || Array.isArray(value)) return;
    const fields = type.getFields();
    const byRestName = new Map(Object.entries(fields).map(([name, field]) => [snakeCase(name), field]));
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const field = byRestName.get(key) ?? fields[key];
      const at = path ? `${path}.${key}` : key;
      if (!field) this.fail(at, `Unknown field ${at}.`);
      else this.refuseUnknownKeys(item, field.type, at);
    }
  }

  private fail(path: string, message: string): undefined {
    addFieldError(this.errors, path, message);
    return undefined;
  }
}
