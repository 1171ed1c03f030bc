/**
 * A REST route is one row: the documented method and path, and the GraphQL operation that
 * answers it. Variables are filled by name from the path parameters, then the JSON body, then
 * the query string (`bodyVariable` takes the whole body instead). Aliases in the document
 * produce the spec's snake_case fields, so the document is the response contract.
 *
 * Naming rule: a GraphQL input field `phoneNumber` is `phone_number` over REST; validation
 * errors are reported under the REST name.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestRoute {
  method: HttpMethod;
  /** Express path with `:name` parameters, e.g. `/api/v1/store/menus/:id`. */
  path: string;
  /** One operation with one root field. */
  document: string;
  /** Success status; 200 by default. */
  status?: number;
  /**
   * How the root field's value becomes the body: `data` wraps it as `{ success, data }`,
   * `message` expects `{ message, data? }` and answers `{ success, message, data }`, `none`
   * answers the value as it is. Default `data`.
   */
  envelope?: 'data' | 'message' | 'none';
  /** The variable that receives the whole JSON body (input objects). */
  bodyVariable?: string;
  /** The body's keys the input type does not have are refused (422 naming each) instead of ignored. */
  strictBody?: boolean;
  /** Variables read from request headers: variable name -> header name (lower case). */
  headers?: Record<string, string>;
  /**
   * Public reads only (GET, not signed-in): the 200 answer is kept for a second at most, keyed by
   * the request (rest/answer-cache.ts). Every field it reaches may depend only on the variables,
   * the viewer, the clock and the database.
   */
  cache?: true;
}
// Whether a row needs a signed-in caller is not written here: it is read from its root field's
// @Authorized() declaration (CompiledRoute.auth), so REST and GraphQL cannot disagree.
