/** The real graphql-ws client over a real websocket, with helpers to await what arrives. */
import { Client, ClientOptions, createClient } from 'graphql-ws';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';

export function wsClient(url: string, token?: string): Client {
  return createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
  });
}

/**
 * A client that connects at once (lazy: false), resolved once the service acknowledged it (rejected
 * if the socket closes first); `on` adds listeners (closes, messages) from the first frame.
 */
export function connectedClient(url: string, token: string, on: Omit<NonNullable<ClientOptions['on']>, 'connected'> = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client: Client = createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: false,
      on: {
        ...on,
        connected: () => resolve(client),
        closed: (event) => (on.closed?.(event), reject(new Error('the socket closed before connection_ack'))),
      },
    });
  });
}

/** Resolves once `condition` holds, checking every 20 ms (rejects after `ms`): waiting for an event, never a fixed sleep. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface Subscription<T> {
  events: T[];
  errors: unknown[];
  completed: Promise<void>;
  /** Resolves once `count` events have arrived (rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<T[]>;
  unsubscribe(): void;
}

export function subscribe<T = Record<string, unknown>>(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
): Subscription<T> {
  const events: T[] = [];
  const errors: unknown[] = [];
  let waiters: (() => void)[] = [];
  let finish!: () => void;
  const completed = new Promise<void>((resolve) => (finish = resolve));
  const wake = () => {
    const current = waiters;
    waiters = [];
    current.forEach((w) => w());
  };
  const unsubscribe = client.subscribe<Record<string, T>>(
    { query, variables },
    {
      next: (result) => {
        if (result.errors) errors.push(...result.errors);
        if (result.data) events.push(Object.values(result.data)[0]);
        wake();
      },
      error: (error) => {
        errors.push(error);
        wake();
        finish();
      },
      complete: () => {
        wake();
        finish();
      },
    },
  );
  return {
    events,
    errors,
    completed,
    unsubscribe,
    waitFor(count: number, ms = 10_000) {
      return new Promise<T[]>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`waited ${ms} ms for ${count} events; got ${events.length}: ${JSON.stringify(events)} ${JSON.stringify(errors)}`),
            ),
          ms,
        );
        const check = () => {
          if (events.length >= count) {
            clearTimeout(timer);
            resolve(events.slice(0, count));
          } else if (errors.length > 0) {
            clearTimeout(timer);
            reject(new Error(`subscription failed: ${JSON.stringify(errors)}`));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}

export interface RawSocket {
  socket: WebSocket;
  /** The HTTP answer when the upgrade was refused (e.g. 429). */
  refused: Promise<{ status: number; retryAfter?: string }>;
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  /** Messages received, parsed. */
  messages: { type: string; id?: string; payload?: any }[];
  /** Resolves with the first message of this type (rejects if the socket closes first). */
  next(type: string, ms?: number): Promise<{ type: string; id?: string; payload?: any }>;
  send(message: unknown): void;
}

/** A websocket speaking graphql-ws by hand: the tests control every frame (and can stop reading). */
export function rawSocket(url: string, headers: Record<string, string> = {}): RawSocket {
  const socket = new WebSocket(url, 'graphql-transport-ws', { headers });
  const messages: RawSocket['messages'] = [];
  let waiters: (() => void)[] = [];
  const wake = () => {
    const current = waiters;
    waiters = [];
    current.forEach((w) => w());
  };
  const refused = new Promise<{ status: number; retryAfter?: string }>((resolve) =>
    socket.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] });
      socket.terminate();
    }),
  );
  const opened = new Promise<void>((resolve) => socket.on('open', () => resolve()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      wake();
    }),
  );
  socket.on('error', () => undefined); // the close event carries what the tests read
  socket.on('message', (data) => {
    messages.push(JSON.parse((data as Buffer).toString()) as RawSocket['messages'][number]);
    wake();
  });
  return {
    socket,
    refused,
    opened,
    closed,
    messages,
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    next(type, ms = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${type}; got ${JSON.stringify(messages)}`)), ms);
        const check = () => {
          const found = messages.find((m) => m.type === type);
          if (found) {
            clearTimeout(timer);
            resolve(found);
          } else if (socket.readyState === WebSocket.CLOSED) {
            clearTimeout(timer);
            reject(new Error(`the socket closed before ${type}; got ${JSON.stringify(messages)}`));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}

/** Opens a raw socket and completes connection_init with the token; resolves once acknowledged. */
export async function initSocket(url: string, token: string): Promise<RawSocket> {
  const raw = rawSocket(url);
  await raw.opened;
  raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
  await raw.next('connection_ack');
  return raw;
}

/**
 * Opens a websocket by hand and sends only the header of a text frame announcing `length`
 * bytes (and none of them): resolves with the close code the server answers. A server that
 * waited for (buffered) the payload before judging it would never answer.
 */
export function frameHeaderOnly(url: string, length: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(url.replace(/^ws/, 'http'), {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        'Sec-WebSocket-Protocol': 'graphql-transport-ws',
      },
    });
    request.on('error', reject);
    request.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
    request.on('upgrade', (_res, socket) => {
      // FIN + text, masked with a 64-bit length, then the mask key (RFC 6455 §5.2).
      const header = Buffer.alloc(14);
      header[0] = 0x81;
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(length), 2);
      randomBytes(4).copy(header, 10);
      socket.write(header);
      let received = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        // The server's close frame: opcode 8, unmasked, its payload's first two bytes the code.
        if (received.length >= 4 && (received[0] & 0x0f) === 8) {
          resolve(received.readUInt16BE(2));
          socket.destroy();
        }
      });
      socket.on('error', reject);
      socket.on('close', () => reject(new Error('closed without a close frame')));
    });
    request.end();
  });
}
