/**
 * The REST adapter: compiles the route table against the schema once at start (a document
 * that does not validate fails the boot), then answers each request by executing its
 * document with the same context, auth and validation as /graphql.
 */
import { Request, RequestHandler, Response, Router } from 'express';
import { DocumentNode, GraphQLInputType, GraphQLSchema, Kind, OperationDefinitionNode, specifiedRules, validate } from 'graphql';
import { addFieldError, AppError, FieldErrors, fieldErrors, routeNotFound, validationFailed } from '../common/errors';
import { assertSignedIn, Context, SIGNED_IN } from '../context';
import { controlCharacterErrors } from '../graphql/control-characters';
import { limitRules, parseLimited } from '../graphql/limits';
import { AnswerCache } from './answer-cache';
import { rowExecutor, RowExecutor } from './executor';
import { RestRoute } from './route';
import { restFieldRenamer, snakeCase } from './field-names';
import { sendError, sendJsonText } from './respond';
import { ruleErrors } from './rule-pass';
import { variableType, VariableReader } from './variables';

export interface CompiledRoute extends RestRoute {
  ast: DocumentNode;
  operation: OperationDefinitionNode;
  /** Response key of the single root field. */
  rootKey: string;
  /** The root field is declared signed-in (@Authorized): 401 before any input is read. */
  auth: boolean;
  /** The document's variables with their schema types, resolved once (not per request). */
  variables: { name: string; type: GraphQLInputType }[];
  /** Runs the document (src/rest/executor.ts: compiled for queries). */
  execute: RowExecutor;
}

export function compileRoutes(schema: GraphQLSchema, routes: RestRoute[]): CompiledRoute[] {
  return routes.map((route) => {
    const where = `${route.method} ${route.path}`;
    const ast = parseLimited(route.document);
    // The limits of /graphql hold for every row; a row's document is fixed, so once is enough.
    const problems = validate(schema, ast, [...specifiedRules, ...limitRules]).map((e) => e.message);
    const operations = ast.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    if (operations.length !== 1) problems.push('the document must hold exactly one operation');
    const operation = operations[0];
    const roots = operation?.selectionSet.selections ?? [];
    if (roots.length !== 1 || roots[0].kind !== Kind.FIELD) problems.push('the operation must select exactly one root field');
    const declared = new Set(operation?.variableDefinitions?.map((v) => v.variable.name.value));
    for (const [, name] of route.path.matchAll(/:(\w+)/g)) {
      if (!declared.has(name)) problems.push(`path parameter :${name} is not a variable of the document`);
    }
    if (route.bodyVariable && !declared.has(route.bodyVariable)) problems.push(`bodyVariable $${route.bodyVariable} is not declared`);
    if (problems.length > 0) throw new Error(`REST route ${where} is invalid:\n  ${problems.join('\n  ')}`);
    const root = roots[0] as { alias?: { value: string }; name: { value: string } };
    const field = schema.getRootType(operation.operation)?.getFields()[root.name.value];
    if (route.cache && (route.method !== 'GET' || field?.extensions?.[SIGNED_IN] === true)) {
      throw new Error(`REST route ${where} is invalid:\n  only public GET rows may be cached`);
    }
    const variables = (operation.variableDefinitions ?? []).map((definition) => ({
      name: definition.variable.name.value,
      type: variableType(schema, definition),
    }));
    let execute: RowExecutor;
    try {
      execute = rowExecutor(schema, ast, operation, variables);
    } catch (error) {
      throw new Error(`REST route ${where} is invalid:\n  ${(error as Error).message}`, { cause: error });
    }
    return {
      ...route,
      ast,
      operation,
      rootKey: root.alias?.value ?? root.name.value,
      auth: field?.extensions?.[SIGNED_IN] === true,
      variables,
      execute,
    };
  });
}

export function restRouter(
  schema: GraphQLSchema,
  routes: CompiledRoute[],
  opts: { development: boolean; context: (res: Response) => Context; cache?: AnswerCache; start?: RequestHandler },
): Router {
  const router = Router();
  const renameFields = restFieldRenamer(schema);
  for (const route of routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const handler = async (req: Request, res: Response) => {
      // The metrics' and the log line's route label (common/metrics.ts).
      res.locals.route = route.path;
      const ctx = opts.context(res);
      try {
        if (route.auth) assertSignedIn(ctx);
        const variableValues = await readVariables(schema, route, req);
        const answer = async () => {
          const result = await route.execute(ctx, variableValues);
          if (result.errors?.length) throw result.errors[0];
          // As res.json writes it (no JSON settings on the app): the same bytes, whether sent now or kept.
          return JSON.stringify(envelope(route, result.data?.[route.rootKey] as Record<string, unknown> | null));
        };
        const body = route.cache && opts.cache ? await opts.cache.answer(answerKey(route, variableValues, ctx), answer) : await answer();
        // res.json's own steps (its content type unless one is set, then res.send: ETag, 304, HEAD).
        sendJsonText(req, res, route.status ?? 200, body);
      } catch (error) {
        sendError(res, error, { development: opts.development, logger: ctx.logger, renameFields });
      }
    };
    if (opts.start) router[method](route.path, opts.start, handler);
    else router[method](route.path, handler);
  }
  return router;
}

/**
 * What a cached answer depends on besides the clock and the database: the row, its variables
 * as read (so `lat=33.60` and `lat=33.6` are one key; their order is the document's) and the
 * viewer (an owner sees the offers and menus of their inactive store; a refused token reads as
 * anonymous, as it is answered).
 */
function answerKey(route: RestRoute, variables: Record<string, unknown>, ctx: Context): string {
  return `${route.method} ${route.path} ${ctx.viewer ? ctx.viewer.userId : 'anon'} ${JSON.stringify(variables)}`;
}

function envelope(route: RestRoute, value: Record<string, unknown> | null) {
  switch (route.envelope ?? 'data') {
    case 'none':
      return value;
    case 'message':
      return { success: true, message: value?.message, ...(value?.data !== undefined && { data: value.data }) };
    default:
      return { success: true, data: value };
  }
}

async function readVariables(schema: GraphQLSchema, route: CompiledRoute, req: Request): Promise<Record<string, unknown>> {
  // The JSON parser takes objects and arrays: an array names no field, whatever the row reads.
  if (Array.isArray(req.body)) throw new AppError('BAD_REQUEST', 'The request body must be a JSON object.');
  // A body of another type is not parsed: its fields would read as none sent (PUT
  // notification-preferences answered 200 and changed nothing). Refused where the row reads a body.
  if (req.body === undefined && carriesBody(req) && readsBody(route)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json).');
  }
  const reader = new VariableReader();
  const body = isObject(req.body) ? req.body : {};
  const query = req.query as Record<string, unknown>;
  const variables: Record<string, unknown> = {};
  for (const { name, type } of route.variables) {
    if (name in req.params) {
      const before = Object.keys(reader.errors).length;
      variables[name] = reader.read(req.params[name], type, name, 'text');
      // A path that does not parse (e.g. /menus/abc) names no resource: 404, not 422.
      if (Object.keys(reader.errors).length > before) {
        throw routeNotFound(req.method, req.path);
      }
      continue;
    }
    const header = route.headers?.[name];
    const fromBody = !header && (name === route.bodyVariable || name in body);
    const raw = header ? req.get(header) : name === route.bodyVariable ? body : fromBody ? body[name] : query[name];
    const value = reader.read(raw, type, name === route.bodyVariable ? '' : name, fromBody ? 'json' : 'text');
    if (value !== undefined) variables[name] = value;
    if (route.strictBody && name === route.bodyVariable) reader.refuseUnknownKeys(raw, type, '');
  }
  // The shared string rule of every resolver (graphql/control-characters.ts), applied here
  // first so that a path parameter or header is named as the client sent it.
  const control = controlCharacterErrors(variables);
  if (control) throw validationFailed({ ...reader.errors, ...control });
  if (Object.keys(reader.errors).length > 0) {
    throw validationFailed(withRuleErrors(reader.errors, await ruleErrors(schema, route.operation, variables)));
  }
  return variables;
}

/** Reading problems, plus the rule problems of what could be read (not those of a field reading refused). */
function withRuleErrors(reading: FieldErrors, rules: FieldErrors): FieldErrors {
  const refused = Object.keys(reading);
  const merged = Object.assign(fieldErrors(), reading);
  for (const [path, messages] of Object.entries(rules)) {
    const restPath = path.split('.').map(snakeCase).join('.');
    if (refused.some((r) => restPath === r || restPath.startsWith(`${r}.`))) continue;
    addFieldError(merged, restPath, ...messages);
  }
  return merged;
}

const carriesBody = (req: Request) => Number(req.headers['content-length']) > 0 || req.headers['transfer-encoding'] !== undefined;

/** A row whose variables may come from the body: one written to, with a variable that is neither a path parameter nor a header. */
const readsBody = (route: CompiledRoute) =>
  route.method !== 'GET' &&
  route.method !== 'DELETE' &&
  route.variables.some((v) => !route.path.includes(`:${v.name}`) && !route.headers?.[v.name]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
