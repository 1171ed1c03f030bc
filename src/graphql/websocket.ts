/**
 * GraphQL over websockets (graphql-ws) on the /graphql path. A token is required in
 * `connection_init` ({ authorization: "Bearer ..." }) or the upgrade request's header. Only
 * subscriptions belong on the socket; the /graphql limits are applied here by hand because
 * graphql-ws runs none of Apollo's plugins, validation rules or formatError. The socket-level
 * guards (frame size, socket caps, connection rate, token life, slow consumers) are in
 * socket-guard.ts.
 */
import type { Server as HttpServer, IncomingMessage } from 'node:http';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import {
  DocumentNode,
  ExecutionArgs,
  ExecutionResult,
  GraphQLError,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  OperationTypeNode,
  specifiedRules,
  validate,
} from 'graphql';
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../common/errors';
import { clientIp, compileTrust } from '../common/client-ip';
import { databaseFault } from '../common/database-faults';
import { Logger } from '../common/logger';
import { Config } from '../config';
import { Context, createContext, Services, Viewer } from '../context';
import { formatGraphQLError, FormatOptions } from './errors';
import { limitRules, MAX_COERCION_ERRORS, parseLimited } from './limits';
import { SharedAnswers, subscribeShared } from './shared-results';
import { CLOSE, SocketGuard } from './socket-guard';

export const MAX_SUBSCRIPTIONS_PER_SOCKET = 20;
/** Distinct documents kept parsed and validated (clients send the same few texts). */
const DOCUMENTS_KEPT = 200;

type ConnectionParams = { authorization?: unknown; Authorization?: unknown; token?: unknown };
type Extra = { request: IncomingMessage; authorization?: string; viewer?: Viewer };

export interface WebSocketOptions {
  httpServer: HttpServer;
  schema: GraphQLSchema;
  config: Config;
  logger: Logger;
  em: EntityManager;
  services: Services;
  format: FormatOptions;
}

export function startWebSocketServer({ httpServer, schema, config, logger, em, services, format }: WebSocketOptions) {
  const guard = new SocketGuard(config.websocket, em, logger);
  const trustProxy = compileTrust(config.trustProxy);
  const ipOf = (request: IncomingMessage) => clientIp(request, trustProxy);
  const wss = new WebSocketServer({
    server: httpServer,
    path: '/graphql',
    // ws reads a frame's length from its header and closes (1009) before buffering a larger one.
    maxPayload: config.websocket.maxPayloadBytes,
    verifyClient: (info, done) => {
      guard.verifyUpgrade(ipOf(info.req)).then(
        (verdict) =>
          verdict.ok
            ? done(true)
            : done(false, verdict.status, verdict.message, verdict.retryAfter ? { 'Retry-After': String(verdict.retryAfter) } : undefined),
        (error) => {
          logger.error({ err: error }, 'websocket upgrade check failed');
          done(false, 500, 'Server Error');
        },
      );
    },
  });
  // The upgrade's answer names the instance too (the HTTP answers do, app.ts).
  const instance = config.instanceName;
  if (instance) wss.on('headers', (headers) => headers.push(`X-Instance: ${instance}`));
  const rules = [...specifiedRules, ...limitRules];
  const contextFor = (request: IncomingMessage, authorization?: string) =>
    createContext({ em, services, logger, ip: ipOf(request), authorization });

  // A document is parsed and validated once per distinct text (validation reads no variables),
  // and every subscriber of that text shares it: their answers to an event are computed once
  // (shared-results.ts), and a thousand subscriptions hold one syntax tree.
  const documents = new Map<string, DocumentNode>();
  const checkedDocument = (query: string): { document: DocumentNode } | { errors: readonly GraphQLError[] } => {
    let document = documents.get(query);
    if (document) {
      documents.delete(query); // the most recently used last
    } else {
      try {
        document = parseLimited(query);
      } catch (error) {
        return { errors: [error as GraphQLError] };
      }
      const errors = validate(schema, document, rules);
      if (errors.length > 0) return { errors }; // refusals are not kept: any text can be sent
      if (documents.size >= DOCUMENTS_KEPT) documents.delete(documents.keys().next().value!);
    }
    documents.set(query, document);
    return { document };
  };
  /**
   * Once a subscription is set up, it keeps a context without the set-up's entity manager (and
   * the entities it loaded): the caller and the services are what its answers may need.
   */
  const settled = async (args: ExecutionArgs) => {
    const setUp = args.contextValue as Context;
    const kept = await createContext({ em, services, logger, ip: setUp.ip, requestId: setUp.requestId, locale: setUp.locale });
    kept.viewer = setUp.viewer;
    args.contextValue = kept;
  };

  // A `next` message's payload as graphql-ws would write it after `onNext` below: the result,
  // its errors formatted. Shared answers are serialised with it once per event and selection.
  const payloadText = (result: ExecutionResult) =>
    JSON.stringify(result.errors ? { ...result, errors: result.errors.map((e) => formatGraphQLError(e.toJSON(), e, format)) } : result);

  /** Streams created by onSubscribe, until graphql-ws's `subscribe` takes them. */
  const streams = new WeakMap<ExecutionArgs, AsyncIterableIterator<ExecutionResult>>();

  const revocations = services.tokenEvents.subscribe('revoked');
  void (async () => {
    for await (const { jti } of revocations) guard.revoked(jti);
  })().catch((error) => logger.error({ err: error }, 'token revocation feed stopped'));

  const cleanup = useServer<ConnectionParams, Extra>(
    {
      schema,
      onConnect: async (ctx) => {
        const authorization = bearerFrom(ctx.connectionParams) ?? ctx.extra.request.headers.authorization;
        try {
          const context = await contextFor(ctx.extra.request, authorization);
          if (!context.viewer) {
            const reason = (context.authError ?? new AppError('UNAUTHENTICATED', 'Unauthenticated.')).message;
            ctx.extra.socket.close(CLOSE.unauthorized, reason);
            return false;
          }
          if (!(await guard.authenticated(ctx.extra.socket, context.viewer))) return false;
          ctx.extra.authorization = authorization;
          ctx.extra.viewer = context.viewer;
          return true;
        } catch (error) {
          // A full pool, a timeout, the database away (the token check, the lease): busy, not 4500
          // (which graphql-ws's client never retries). No operation exists yet to carry an error.
          const fault = databaseFault(error);
          if (!fault) throw error;
          ctx.extra.socket.close(CLOSE.busy, fault.message);
          return false;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        // graphql-ws has already reserved this operation's id, so it counts itself.
        if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_SOCKET) {
          return [
            new GraphQLError(`At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions per connection.`, {
              extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
            }),
          ];
        }
        const checked = checkedDocument(payload.query);
        if (!('document' in checked)) return checked.errors;
        const { document } = checked;
        const operation = document.definitions.find(
          (d): d is OperationDefinitionNode =>
            d.kind === Kind.OPERATION_DEFINITION && (!payload.operationName || d.name?.value === payload.operationName),
        );
        if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) {
          return [
            new GraphQLError('Only subscriptions are served over the websocket; send queries and mutations to POST /graphql.', {
              extensions: { code: 'OPERATION_NOT_ALLOWED' },
            }),
          ];
        }
        // The caller is checked again for every subscription: a token revoked since connecting stops here.
        let contextValue: Context;
        try {
          contextValue = await contextFor(ctx.extra.request, ctx.extra.authorization);
        } catch (error) {
          // A database fault answers this operation as /graphql answers it (UNAVAILABLE, retryAfter;
          // onError formats it), not by closing the socket with 4500.
          const fault = databaseFault(error);
          if (!fault) throw error;
          return [new GraphQLError(fault.message, { originalError: fault })];
        }
        if (!contextValue.viewer)
          return [new GraphQLError(contextValue.authError?.message ?? 'Unauthenticated.', { extensions: { code: 'UNAUTHENTICATED' } })];
        const args: ExecutionArgs = {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue,
          options: { maxCoercionErrors: MAX_COERCION_ERRORS },
        };
        // The subscription's own resolver runs here, not in graphql-ws's `subscribe`: when it fails
        // (the order's access check on a full pool, not found, forbidden) graphql-js answers one
        // result with errors, which graphql-ws would send as a `next` followed by `complete` (a
        // stream that answered and ended: a client does not retry it). Returned from onSubscribe,
        // the errors are graphql-ws's `error` message, the operation's end with its errors (the
        // socket kept), as validation's and the caller check's are.
        const stream = await subscribeShared(args);
        if (!isAsyncIterable(stream)) return stream.errors?.length ? stream.errors : [new GraphQLError('The subscription gave no stream.')];
        await settled(args);
        streams.set(args, stream);
        return args;
      },
      // The stream onSubscribe created for these arguments (graphql-ws passes them on unchanged):
      // onSubscribe answers every operation with errors or with arguments it stored a stream for.
      subscribe: (args) => {
        const stream = streams.get(args);
        if (!stream) throw new Error('websocket: no stream was created for this operation in onSubscribe');
        streams.delete(args);
        return stream;
      },
      // A shared answer is written by us, its text once per event and selection behind each
      // subscriber's id: the bytes graphql-ws would send, without its per-subscriber promise
      // chain and serialisation. graphql-ws keeps an iterator that ends with the stream, so its
      // complete, error, unsubscribe and close handling stay its own.
      onOperation: (ctx, id, _payload, _args, result) => {
        if (!(result instanceof SharedAnswers)) return undefined;
        const socket = ctx.extra.socket;
        const head = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
        return result.deliver((text) => {
          if (socket.readyState === socket.OPEN) socket.send(`${head}${text}}`);
        }, payloadText);
      },
      // The same shapes as /graphql: codes, no suggestions in production, internal errors masked.
      onError: (_ctx, _id, _payload, errors) => {
        logger.debug({ errors: errors.map((e) => e.message) }, 'websocket operation error');
        return errors.map((e) => formatGraphQLError(e.toJSON(), e, format));
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => formatGraphQLError(e.toJSON(), e, format)) } : undefined,
    },
    wss,
    config.websocket.keepAliveSeconds * 1000,
  );
  wss.on('connection', (socket, request) => {
    guard.opened(socket, ipOf(request));
    // ws closes a socket whose frame it refuses (1009 too large, 1002 malformed) by itself;
    // graphql-ws's listener would print each one to stderr, which any anonymous peer could fill.
    socket.removeAllListeners('error');
    socket.on('error', (error) => logger.debug({ err: error }, 'websocket protocol error'));
  });
  return {
    /** Websockets open now (the metrics' gauge). */
    open: () => wss.clients.size,
    async dispose() {
      await guard.dispose();
      await revocations.return?.();
      await cleanup.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function isAsyncIterable<T>(value: T | AsyncIterableIterator<ExecutionResult>): value is AsyncIterableIterator<ExecutionResult> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

function bearerFrom(params: ConnectionParams | undefined): string | undefined {
  const value = params?.authorization ?? params?.Authorization ?? params?.token;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return /^bearer\s/i.test(value.trim()) ? value.trim() : `Bearer ${value.trim()}`;
}
