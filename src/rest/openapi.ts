/**
 * The machine-readable description of the REST surface (spec §9: version 1.0.0), generated
 * from the route table itself: parameters from the documents' variables, bodies from their
 * input types, responses from their selections. It cannot drift from what is served.
 */
import {
  FieldNode,
  FragmentDefinitionNode,
  getNamedType,
  GraphQLNamedType,
  GraphQLOutputType,
  GraphQLSchema,
  GraphQLType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  OperationTypeNode,
  SelectionSetNode,
} from 'graphql';
import { CompiledRoute } from './adapter';
import { variableType } from './variables';
import { snakeCase } from './field-names';

type Schema = Record<string, unknown>;

const SCALARS: Record<string, Schema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  String: { type: 'string' },
  ID: { type: 'string' },
  DateTimeISO: { type: 'string', format: 'date-time' },
};

const ERROR = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };
const VALIDATION_ERROR = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
  },
  required: ['errors'],
};

const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });

function scalar(type: GraphQLNamedType): Schema {
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.name) };
  return SCALARS[type.name] ?? { type: 'string', description: type.name };
}

/** JSON schema of an input type as REST clients send it (snake_case keys). */
function inputSchema(type: GraphQLType): Schema {
  if (isNonNullType(type)) return inputSchema(type.ofType);
  if (isListType(type)) return { type: 'array', items: inputSchema(type.ofType) };
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    return {
      type: 'object',
      properties: Object.fromEntries(
        fields.map((f) => [snakeCase(f.name), { ...inputSchema(f.type), ...(f.description && { description: f.description }) }]),
      ),
      required: fields.filter((f) => isNonNullType(f.type)).map((f) => snakeCase(f.name)),
    };
  }
  return scalar(type as GraphQLNamedType);
}

/** JSON schema of what a selection answers, aliases and fragments included. */
function outputSchema(
  type: GraphQLOutputType,
  selection: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
): Schema {
  if (isNonNullType(type)) {
    const inner = outputSchema(type.ofType, selection, fragments);
    return inner.anyOf ? (inner.anyOf as Schema[])[0] : inner;
  }
  if (isListType(type)) return nullable({ type: 'array', items: outputSchema(type.ofType, selection, fragments) });
  const named = getNamedType(type);
  if (!isObjectType(named) || !selection) return nullable(scalar(named));
  const properties: Record<string, Schema> = {};
  const visit = (set: SelectionSetNode) => {
    for (const node of set.selections) {
      if (node.kind === Kind.FRAGMENT_SPREAD) visit(fragments.get(node.name.value)!.selectionSet);
      else if (node.kind === Kind.INLINE_FRAGMENT) visit(node.selectionSet);
      else {
        const field = node;
        if (field.name.value === '__typename') continue;
        const definition = named.getFields()[field.name.value];
        properties[field.alias?.value ?? field.name.value] = {
          ...outputSchema(definition.type, field.selectionSet, fragments),
          ...(definition.description && { description: definition.description }),
        };
      }
    }
  };
  visit(selection);
  return nullable({ type: 'object', properties, required: Object.keys(properties) });
}

function responseSchema(route: CompiledRoute, schema: GraphQLSchema): Schema {
  const fragments = new Map(
    route.ast.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const root = route.operation.selectionSet.selections[0] as FieldNode;
  const rootType = route.operation.operation === OperationTypeNode.MUTATION ? schema.getMutationType()! : schema.getQueryType()!;
  const value = outputSchema(rootType.getFields()[root.name.value].type, root.selectionSet, fragments);
  const object = (value.anyOf ? (value.anyOf as Schema[])[0] : value) as { properties?: Record<string, Schema> };
  switch (route.envelope ?? 'data') {
    case 'none':
      return value;
    case 'message':
      return {
        type: 'object',
        properties: {
          success: { type: 'boolean', const: true },
          message: { type: 'string' },
          ...(object.properties?.data && { data: object.properties.data }),
        },
        required: ['success', 'message'],
      };
    default:
      return { type: 'object', properties: { success: { type: 'boolean', const: true }, data: value }, required: ['success', 'data'] };
  }
}

export function openApiDocument(schema: GraphQLSchema, routes: CompiledRoute[]): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const pathParams = new Set([...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]));
    const parameters: Schema[] = [];
    const body: Record<string, Schema> = {};
    const required: string[] = [];
    let bodySchema: Schema | undefined;
    for (const definition of route.operation.variableDefinitions ?? []) {
      const name = definition.variable.name.value;
      const type = variableType(schema, definition);
      const header = route.headers?.[name];
      if (pathParams.has(name)) parameters.push({ name, in: 'path', required: true, schema: inputSchema(type) });
      else if (header) parameters.push({ name: header, in: 'header', required: isNonNullType(type), schema: inputSchema(type) });
      else if (name === route.bodyVariable) bodySchema = inputSchema(type);
      else if (route.method === 'GET' || route.method === 'DELETE') {
        parameters.push({ name, in: 'query', required: isNonNullType(type), schema: inputSchema(type) });
      } else {
        body[name] = inputSchema(type);
        if (isNonNullType(type)) required.push(name);
      }
    }
    if (!bodySchema && Object.keys(body).length > 0) bodySchema = { type: 'object', properties: body, required };
    const status = String(route.status ?? 200);
    const errors: Record<string, Schema> = {
      ...(route.auth && {
        401: { description: 'Missing, expired, invalid or revoked token', content: { 'application/json': { schema: ERROR } } },
      }),
      ...(pathParams.size > 0 && { 404: { description: 'Not found', content: { 'application/json': { schema: ERROR } } } }),
      422: { description: 'Validation failed', content: { 'application/json': { schema: VALIDATION_ERROR } } },
    };
    (paths[path] ??= {})[route.method.toLowerCase()] = {
      operationId: route.operation.name?.value,
      ...(route.auth && { security: [{ bearer: [] }] }),
      ...(parameters.length > 0 && { parameters }),
      ...(bodySchema && { requestBody: { required: true, content: { 'application/json': { schema: bodySchema } } } }),
      responses: {
        [status]: { description: 'Success', content: { 'application/json': { schema: responseSchema(route, schema) } } },
        ...errors,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Delivery platform service', version: '1.0.0' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    paths,
  };
}
