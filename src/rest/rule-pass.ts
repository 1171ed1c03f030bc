/**
 * The rule pass of a REST request whose reading pass already failed. Reading stops a request
 * before it reaches GraphQL (a missing `items.1.quantity` cannot become a variable), which
 * would hide the rules type-graphql runs on the arguments (`items.0.quantity` must be at
 * least 1). So on a reading failure the adapter runs those same class-validator rules here,
 * on the arguments as far as they could be read, and one 422 names both kinds of problem.
 */
import {
  GraphQLInputType,
  GraphQLSchema,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  OperationDefinitionNode,
  OperationTypeNode,
  ValueNode,
  valueFromASTUntyped,
} from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { FieldErrors } from '../common/errors';
import { ruleProblems } from '../common/validation';

/** Problems of the root field's input-object arguments, keyed as type-graphql keys them. */
export async function ruleErrors(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Promise<FieldErrors> {
  const root = operation.selectionSet.selections[0];
  const parent = operation.operation === OperationTypeNode.MUTATION ? schema.getMutationType() : schema.getQueryType();
  if (root?.kind !== Kind.FIELD || !parent) return {};
  const definition = parent.getFields()[root.name.value];
  const fields: FieldErrors = {};
  for (const argument of root.arguments ?? []) {
    const arg = definition?.args.find((a) => a.name === argument.name.value);
    if (!arg) continue;
    const value = instance(arg.type, evaluate(argument.value, variables));
    // Only instances of type-graphql input classes carry rules (a plain object has none).
    if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) === Object.prototype || Array.isArray(value)) continue;
    // type-graphql's own settings: missing properties are the reading pass's business.
    Object.assign(fields, await ruleProblems(value));
  }
  return fields;
}

/** The argument's value from its AST, with what could be read in place of each variable. */
function evaluate(node: ValueNode, variables: Record<string, unknown>): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, evaluate(f.value, variables)]).filter(([, v]) => v !== undefined));
    case Kind.LIST:
      return node.values.map((v) => evaluate(v, variables));
    default:
      return valueFromASTUntyped(node);
  }
}

/** Plain values -> instances of the type-graphql input classes, so their decorators apply. */
function instance(type: GraphQLInputType, value: unknown): unknown {
  if (isNonNullType(type)) return instance(type.ofType, value);
  if (value === null || value === undefined) return value;
  if (isListType(type)) return Array.isArray(value) ? value.map((v) => instance(type.ofType, v)) : value;
  if (!isInputObjectType(type) || typeof value !== 'object') return value;
  const metadata = getMetadataStorage().inputTypes.find((t) => t.name === type.name);
  if (!metadata) return value;
  const source = value as Record<string, unknown>;
  const result = new (metadata.target as new () => Record<string, unknown>)();
  for (const [name, field] of Object.entries(type.getFields())) {
    const property = metadata.fields?.find((f) => f.schemaName === name)?.name ?? name;
    if (source[name] !== undefined) result[property] = instance(field.type, source[name]);
  }
  return result;
}
