/**
 * GraphiQL's fetcher: queries and mutations go to POST /graphql with the Headers editor's
 * headers; subscriptions go over graphql-ws, signed in with the same Authorization header
 * (one socket per header value).
 */
import type { ComponentProps } from 'react';
import type { GraphiQL } from 'graphiql';
import {
  getOperationAST,
  OperationTypeNode,
  parse,
  print,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
} from 'graphql';
import { createClient, type Client } from 'graphql-ws';

type Fetcher = ComponentProps<typeof GraphiQL>['fetcher'];
type Params = Parameters<Fetcher>[0];

const endpoint = '/graphql';
const socketUrl = () => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${endpoint}`;

function headersOf(raw: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (raw && typeof raw === 'object') {
    for (const [name, value] of Object.entries(raw)) {
      // An empty value (the editor's starting point) is no header at all.
      if (typeof value === 'string' && value.trim() !== '') headers[name] = value.trim();
    }
  }
  return headers;
}

function authorizationOf(headers: Record<string, string>): string | undefined {
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'authorization');
  return entry?.[1];
}

async function overHttp(params: Params, headers: Record<string, string>): Promise<ExecutionResult> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(params),
  });
  const text = await response.text();
  try {
    return JSON.parse(text) as ExecutionResult;
  } catch {
    return { errors: [{ message: `HTTP ${response.status}: ${text.slice(0, 500)}` }] } as unknown as ExecutionResult;
  }
}

let socket: { authorization: string | undefined; client: Client } | undefined;

function socketFor(authorization: string | undefined): Client {
  if (!socket || socket.authorization !== authorization) {
    void socket?.client.dispose();
    socket = {
      authorization,
      client: createClient({ url: socketUrl(), connectionParams: authorization ? { authorization } : {}, retryAttempts: 0 }),
    };
  }
  return socket.client;
}

/** A closed socket becomes a readable GraphQL error in the result pane. */
async function* overSocket(params: Params, authorization: string | undefined): AsyncGenerator<FormattedExecutionResult> {
  try {
    yield* socketFor(authorization).iterate({
      query: params.query,
      operationName: params.operationName ?? undefined,
      variables: (params.variables as Record<string, unknown> | null | undefined) ?? undefined,
    });
  } catch (error) {
    const close = error as { code?: number; reason?: string };
    const message =
      typeof close.code === 'number'
        ? `The websocket closed (${close.code}${close.reason ? `: ${close.reason}` : ''}).${close.code === 4401 ? ' Put {"Authorization": "Bearer <token>"} in Headers.' : ''}`
        : error instanceof Error
          ? error.message
          : 'The subscription failed.';
    yield { errors: [{ message }] };
  }
}

function isSubscription(params: Params, documentAST: DocumentNode | undefined): boolean {
  try {
    const document = documentAST ?? parse(params.query);
    return getOperationAST(document, params.operationName ?? undefined)?.operation === OperationTypeNode.SUBSCRIPTION;
  } catch {
    return false; // the server answers the syntax error
  }
}

/**
 * GraphiQL's introspection query nests `ofType` 9 deep (14 levels), past the service's depth
 * limit of 12. Seven levels describe any type this schema has (the deepest is [T!]!), so the
 * chain is cut there; the query is otherwise GraphiQL's own.
 */
const MAX_OF_TYPE = 7;

function withinDepthLimit(query: string): string {
  let depth = 0;
  const trimmed = visit(parse(query), {
    Field: {
      enter(node) {
        if (node.name.value !== 'ofType') return undefined;
        if (depth === MAX_OF_TYPE) return null;
        depth += 1;
        return undefined;
      },
      leave(node) {
        if (node.name.value === 'ofType') depth -= 1;
      },
    },
  });
  return print(trimmed);
}

export const fetcher: Fetcher = (params, options) => {
  const headers = headersOf(options?.headers);
  // GraphiQL renders formatted results; its type names the unformatted ExecutionResult.
  if (isSubscription(params, options?.documentAST)) return overSocket(params, authorizationOf(headers)) as AsyncGenerator<ExecutionResult>;
  if (params.operationName === 'IntrospectionQuery') return overHttp({ ...params, query: withinDepthLimit(params.query) }, headers);
  return overHttp(params, headers);
};
