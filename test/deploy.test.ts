/**
 * What the deployment kit (deploy/) relies on in the service itself: behind a balancer, every
 * answer names the instance that gave it (INSTANCE_NAME -> X-Instance), the websocket upgrade
 * included, so an operator (and `npm run cluster`) can tell the instances apart.
 */
import http from 'node:http';
import WebSocket from 'ws';
import { startTestServer, TestServer } from './helpers/server';

let named: TestServer;
let unnamed: TestServer;
beforeAll(async () => {
  named = await startTestServer({ INSTANCE_NAME: 'app-a' });
  unnamed = await startTestServer({}, named.db);
});
afterAll(async () => {
  await unnamed?.close();
  await named?.close();
});

const headersOf = (url: string) =>
  new Promise<http.IncomingHttpHeaders>((resolve, reject) =>
    http.get(url, (res) => (res.resume(), resolve(res.headers))).on('error', reject),
  );

const upgradeHeaders = (url: string) =>
  new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    socket.once('upgrade', (res) => resolve(res.headers));
    socket.once('open', () => socket.terminate());
    socket.once('error', reject);
  });

test('INSTANCE_NAME names the instance on HTTP answers, errors included, and on the websocket upgrade', async () => {
  expect((await headersOf(`${named.url}/healthz`))['x-instance']).toBe('app-a');
  expect((await headersOf(`${named.url}/no-such-route`))['x-instance']).toBe('app-a');
  expect((await upgradeHeaders(named.wsUrl))['x-instance']).toBe('app-a');
});

test('without INSTANCE_NAME no X-Instance header is sent', async () => {
  expect((await headersOf(`${unnamed.url}/healthz`))['x-instance']).toBeUndefined();
  expect((await upgradeHeaders(unnamed.wsUrl))['x-instance']).toBeUndefined();
});
