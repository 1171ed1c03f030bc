/**
 * How a REST row's fixed document is executed. One rule: a row whose operation is a query runs
 * compiled (graphql-jit, compiled once when the route table compiles); a mutation runs through
 * graphql-js's `execute`, as does everything on /graphql and the websocket.
 *
 * Why (issue 9, docs/decisions.md "City scale: executing the document"): graphql-js builds a
 * resolve-info object, an argument map and a path entry for each field of each row it answers
 * (the home screen: ~1 000 fields); the compiled query reads plain fields inline. Why only
 * queries: graphql-jit's coercion of input-object variables differs from graphql-js's (a
 * partial update answered 422 naming fields that were not sent); every query row takes only
 * built-in scalar variables, already read by the adapter's VariableReader, and a query row with
 * any other variable type is refused at start rather than run with a different coercion.
 * test/compiled-execution.test.ts holds the two executors to the same answers, errors included.
 */
import {
  DocumentNode,
  execute,
  ExecutionResult,
  getNamedType,
  GraphQLInputType,
  getVariableValues,
  GraphQLError,
  GraphQLSchema,
  isSpecifiedScalarType,
  OperationDefinitionNode,
  OperationTypeNode,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { Context } from '../context';

export type RowExecutor = (ctx: Context, variableValues: Record<string, unknown>) => Promise<ExecutionResult> | ExecutionResult;

export function rowExecutor(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: { name: string; type: GraphQLInputType }[],
): RowExecutor {
  if (operation.operation !== OperationTypeNode.QUERY) {
    return (ctx, variableValues) => execute({ schema, document, contextValue: ctx, variableValues });
  }
  const other = variables.filter(({ type }) => !isSpecifiedScalarType(getNamedType(type)));
  if (other.length > 0) {
    throw new Error(
      `a query row takes built-in scalar variables only (compiled execution coerces others differently): ${other.map((v) => `$${v.name}`).join(', ')}`,
    );
  }
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled)) throw new Error(`the document does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  const definitions = operation.variableDefinitions ?? [];
  return (ctx, variableValues) => {
    // graphql-js's own coercion first, with its errors as `execute` answers them; the compiled
    // query's coercion of the values it gives is then the identity (built-in scalars).
    const coerced = getVariableValues(schema, definitions, variableValues, { maxErrors: 50 });
    if (coerced.errors) return { errors: coerced.errors };
    const result = compiled.query(undefined, ctx, coerced.coerced);
    return 'then' in result ? result.then(asGraphQLJsErrors) : asGraphQLJsErrors(result);
  };
}

/**
 * graphql-jit's errors are not graphql-js GraphQLErrors (no `instanceof`, no `extensions`, no
 * original error for a null in a non-null field): each becomes the error graphql-js's
 * `locatedError` makes of the same failure — the thrown error as `originalError`; where nothing
 * was thrown, what graphql-js throws itself: an Error for a null in a non-null field, a
 * GraphQLError otherwise (a value a scalar cannot serialize, a list that is not one) — with the
 * same path and locations, so that classify-error.ts reads it the same way.
 */
const NON_NULL = /^Cannot return null for non-nullable field /;

function asGraphQLJsErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors) return result;
  const errors = result.errors.map((error) => {
    const thrown = error.originalError ?? (NON_NULL.test(error.message) ? new Error(error.message) : new GraphQLError(error.message));
    const located = new GraphQLError(error.message, { path: error.path, originalError: thrown });
    (located as { locations: GraphQLError['locations'] }).locations = error.locations;
    return located;
  });
  return { ...result, errors };
}
