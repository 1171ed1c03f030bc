/**
 * A tiny real reverse proxy for tests (nginx is not installed here): forwards HTTP requests
 * and websocket upgrades to a target and appends the address it saw to X-Forwarded-For, as
 * nginx's `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for` does.
 */
import http, { IncomingMessage } from 'node:http';
import net, { AddressInfo } from 'node:net';

export interface TestProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

function forwardedHeaders(req: IncomingMessage): http.OutgoingHttpHeaders {
  const seen = req.socket.remoteAddress ?? '';
  const header = req.headers['x-forwarded-for'];
  const existing = Array.isArray(header) ? header.join(', ') : header;
  return { ...req.headers, 'x-forwarded-for': existing ? `${existing}, ${seen}` : seen };
}

export async function startProxy(target: string): Promise<TestProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const upstream = http.request({ host: hostname, port, method: req.method, path: req.url, headers: forwardedHeaders(req) }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req: IncomingMessage, socket: net.Socket, head: Buffer) => {
    const upstream = net.connect(Number(port), hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (const [name, value] of Object.entries(forwardedHeaders(req))) {
        for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxyPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    port: proxyPort,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One request sent from a chosen loopback address (127.0.0.2, ...): another client machine. */
export function requestFrom(
  localAddress: string,
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      { method, localAddress, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
