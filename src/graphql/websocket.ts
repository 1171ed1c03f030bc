/**
 * GraphQL over websockets (graphql-ws) on the /graphql path. A token is required in
 * `connection_init` ({ authorization: "Bearer ..." }) or the upgrade request's header. Only
 * subscriptions belong on the socket; the /graphql limits are applied here by hand because
 * graphql-ws runs none of Apollo's plugins or validation rules.
 */
import type { Server as HttpServer, IncomingMessage } from 'node:http';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError, GraphQLSchema, Kind, OperationDefinitionNode, OperationTypeNode, parse, specifiedRules, validate } from 'graphql';
import { AppError } from '../common/errors';
import { Logger } from '../common/logger';
import { createContext, ContextSource } from '../context';
import { depthLimit } from './limits';

export const MAX_SUBSCRIPTIONS_PER_SOCKET = 20;

type ConnectionParams = { authorization?: unknown; Authorization?: unknown; token?: unknown };
type Extra = { request: IncomingMessage; authorization?: string };

export interface WebSocketOptions {
  httpServer: HttpServer;
  schema: GraphQLSchema;
  logger: Logger;
  source: (request: IncomingMessage) => Omit<ContextSource, 'authorization' | 'requestId'>;
}

export function startWebSocketServer({ httpServer, schema, logger, source }: WebSocketOptions) {
  const wss = new WebSocketServer({ server: httpServer, path: '/graphql' });
  const rules = [...specifiedRules, depthLimit()];

  const cleanup = useServer<ConnectionParams, Extra>(
    {
      schema,
      onConnect: async (ctx) => {
        const authorization = bearerFrom(ctx.connectionParams) ?? ctx.extra.request.headers.authorization;
        const context = await createContext({ ...source(ctx.extra.request), authorization });
        if (!context.viewer) {
          const reason = (context.authError ?? new AppError('UNAUTHENTICATED', 'Unauthenticated.')).message;
          ctx.extra.socket.close(4401, reason);
          return false;
        }
        ctx.extra.authorization = authorization;
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        // graphql-ws has already reserved this operation's id, so it counts itself.
        if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_SOCKET) {
          return [new GraphQLError(`At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions per connection.`, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } })];
        }
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [error as GraphQLError];
        }
        const errors = validate(schema, document, rules);
        if (errors.length > 0) return errors;
        const operation = document.definitions.find(
          (d): d is OperationDefinitionNode =>
            d.kind === Kind.OPERATION_DEFINITION && (!payload.operationName || d.name?.value === payload.operationName),
        );
        if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) {
          return [new GraphQLError('Only subscriptions are served over the websocket; send queries and mutations to POST /graphql.', { extensions: { code: 'OPERATION_NOT_ALLOWED' } })];
        }
        // The caller is checked again for every subscription: a token revoked since connecting stops here.
        const contextValue = await createContext({ ...source(ctx.extra.request), authorization: ctx.extra.authorization });
        if (!contextValue.viewer) return [new GraphQLError(contextValue.authError?.message ?? 'Unauthenticated.', { extensions: { code: 'UNAUTHENTICATED' } })];
        return { schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue };
      },
      onError: (_ctx, _id, _payload, errors) => {
        logger.debug({ errors: errors.map((e) => e.message) }, 'websocket operation error');
      },
    },
    wss,
  );
  return {
    async dispose() {
      await cleanup.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function bearerFrom(params: ConnectionParams | undefined): string | undefined {
  const value = params?.authorization ?? params?.Authorization ?? params?.token;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return /^bearer\s/i.test(value.trim()) ? value.trim() : `Bearer ${value.trim()}`;
}
