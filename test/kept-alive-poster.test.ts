/**
 * The providers' HTTP client (common/kept-alive-poster.ts): kept-alive connections, at most 32 per
 * provider, the answer read whole (its first 64 KB kept), and one deadline for the whole send —
 * the wait for a connection, a silent server and an answer trickled a byte at a time included —
 * after which the send fails and its connection is dropped.
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { KeptAlivePoster } from '../src/common/kept-alive-poster';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

describe('KeptAlivePoster', () => {
  let handler: Handler;
  let url: string;
  let opened = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', () => opened++);

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/send?x=1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    opened = 0;
  });

  it('posts the body with its headers and reads status, JSON and Retry-After, on kept-alive connections', async () => {
    const seen: { method?: string; url?: string; type?: string; auth?: string; length?: string; body: string }[] = [];
    handler = (req, res, body) => {
      seen.push({
        method: req.method,
        url: req.url,
        type: req.headers['content-type'],
        auth: req.headers.authorization,
        length: req.headers['content-length'],
        body,
      });
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end(JSON.stringify({ error: { status: 'RESOURCE_EXHAUSTED' } }));
    };
    const poster = new KeptAlivePoster(() => 5000);
    const body = JSON.stringify({ message: { token: 't', notification: { title: 'Nouvelle commande n°1', body: '2× Crème brûlée' } } });
    for (let i = 0; i < 6; i++) {
      await expect(poster.post(url, { authorization: 'Bearer a', 'content-type': 'application/json' }, body)).resolves.toEqual({
        status: 429,
        json: { error: { status: 'RESOURCE_EXHAUSTED' } },
        text: JSON.stringify({ error: { status: 'RESOURCE_EXHAUSTED' } }),
        retryAfter: '7',
      });
    }
    expect(seen).toEqual(
      Array(6).fill({
        method: 'POST',
        url: '/v1/send?x=1',
        type: 'application/json',
        auth: 'Bearer a',
        length: String(Buffer.byteLength(body)),
        body,
      }),
    );
    // One after the other, the sends share a connection or two (the next may leave before the
    // previous one's is free again), not one each.
    expect(opened).toBeLessThanOrEqual(2);
  });

  it('keeps the first 64 KB of an answer, and answers {} as the JSON of one that is not JSON', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(200_000));
    };
    const answer = await new KeptAlivePoster(() => 5000).post(url, {}, '{}');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({});
    expect(answer.retryAfter).toBeNull();
    expect(answer.text.length).toBeGreaterThanOrEqual(65_536);
    expect(answer.text.length).toBeLessThan(200_000);
  });

  it('fails an answer trickled a byte at a time at the deadline, and drops its connection', async () => {
    const timers: NodeJS.Timeout[] = [];
    let dropped: Promise<unknown> | undefined;
    handler = (_req, res) => {
      dropped = new Promise((resolve) => res.socket!.once('close', resolve));
      res.writeHead(200, { 'content-type': 'application/json' });
      timers.push(setInterval(() => res.write(' '), 50));
    };
    const began = Date.now();
    await expect(new KeptAlivePoster(() => 400).post(url, {}, '{}')).rejects.toThrow('no full answer within 400 ms');
    expect(Date.now() - began).toBeGreaterThanOrEqual(390);
    expect(Date.now() - began).toBeLessThan(2000);
    await dropped;
    timers.forEach(clearInterval);
  });

  it('counts the wait for one of its 32 connections in the deadline, and fails a silent server at it', async () => {
    const held: http.ServerResponse[] = [];
    handler = (_req, res) => held.push(res);
    const poster = new KeptAlivePoster(() => 1500);
    const sends = Array.from({ length: 40 }, () =>
      poster.post(url, {}, '{}').then(
        () => 'answered',
        (error: Error) => error.message,
      ),
    );
    for (let i = 0; i < 100 && held.length < 32; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // 32 connections, each holding one send; the other eight wait for one of them.
    expect(held).toHaveLength(32);
    // Every send fails at its deadline, counted from its call, those waiting included.
    expect(await Promise.all(sends)).toEqual(Array(40).fill('no full answer within 1500 ms'));
  });

  it('refuses at once when no time is left', async () => {
    await expect(new KeptAlivePoster(() => 5000).post(url, {}, '{}', 0)).rejects.toThrow('no time left before the deadline');
  });
});
