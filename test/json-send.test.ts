/**
 * sendJsonText (src/rest/respond.ts) answers exactly what Express 5's `res.send` answers for the
 * same JSON text: status line, headers (names, values, order) and body, read raw off the socket,
 * for GET, HEAD, a conditional GET that is fresh (304) and one that is not, and a 204.
 */
import http from 'node:http';
import net, { AddressInfo } from 'node:net';
import express from 'express';
import { sendJsonText } from '../src/rest/respond';

const BODY = JSON.stringify({ success: true, data: { name: 'Café — été', n: 1 } });

let server: http.Server;
let port: number;

beforeAll(async () => {
  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    res.setHeader('X-Before', 'kept first');
    next();
  });
  app.get('/express/:status', (req, res) => {
    if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
    res.status(Number(req.params.status)).send(BODY);
  });
  app.get('/lean/:status', (req, res) => sendJsonText(req, res, Number(req.params.status), BODY));
  app.get('/typed/:status', (req, res) => {
    res.setHeader('Content-Type', 'application/vnd.x+json');
    sendJsonText(req, res, Number(req.params.status), BODY);
  });
  app.get('/express-typed/:status', (req, res) => {
    res.setHeader('Content-Type', 'application/vnd.x+json');
    res.status(Number(req.params.status)).send(BODY);
  });
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The raw answer to one request, without its Date header. */
function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (chunk) => (out += chunk.toString('latin1')));
    socket.on('end', () => resolve(out.replace(/\r\nDate: [^\r]*/, '')));
    socket.on('error', reject);
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: x', 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

describe('sendJsonText', () => {
  const etagOf = async () => /ETag: ([^\r]*)/.exec(await raw('GET', '/express/200'))![1];

  it.each([
    ['GET', 200, {}],
    ['GET', 201, {}],
    ['GET', 204, {}],
    ['HEAD', 200, {}],
    ['GET', 200, { 'If-None-Match': '"nope"' }],
    ['GET', 200, { 'If-Modified-Since': 'Wed, 21 Oct 2015 07:28:00 GMT' }],
  ])('answers %s %i %j as res.send does', async (method, status, headers) => {
    const express = await raw(method, `/express/${status}`, headers);
    expect(express).toMatch(/^HTTP\/1.1 \d{3} /);
    expect(await raw(method, `/lean/${status}`, headers)).toBe(express);
    expect(await raw(method, `/typed/${status}`, headers)).toBe(await raw(method, `/express-typed/${status}`, headers));
  });

  it('answers 304 without a body to a fresh conditional GET, as res.send does', async () => {
    const headers = { 'If-None-Match': await etagOf() };
    const express = await raw('GET', '/express/200', headers);
    expect(express).toMatch(/^HTTP\/1.1 304 /);
    expect(await raw('GET', '/lean/200', headers)).toBe(express);
  });
});
