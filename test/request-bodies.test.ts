/**
 * Request bodies the parser cannot read (issue 29, item 3): an unsupported Content-Encoding is
 * 415, a body that does not decode with its encoding is 400, both with `{message}` and logged
 * as a client error (info, no stack), never a 500.
 */
import http from 'node:http';
import { PassThrough } from 'node:stream';
import zlib from 'node:zlib';
import { uniquePhone } from './helpers/auth';
import { startTestServer, TestServer } from './helpers/server';

let server: TestServer;
const records: Record<string, unknown>[] = [];
beforeAll(async () => {
  const logs = new PassThrough();
  logs.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) records.push(JSON.parse(line) as Record<string, unknown>);
  });
  server = await startTestServer({}, undefined, { logs });
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  records.length = 0;
});

/** A raw POST (fetch would refuse or rewrite some of these headers). */
const post = (path: string, body: Buffer, headers: Record<string, string>) =>
  new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request(
      `${server.url}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const json = () => Buffer.from(JSON.stringify({ phone_number: uniquePhone() }));

describe('Content-Encoding', () => {
  it.each([
    ['zstd', json(), 415, 'The request body\'s Content-Encoding "zstd" is not supported: send it uncompressed or as gzip, deflate, br.'],
    [
      'compress',
      json(),
      415,
      'The request body\'s Content-Encoding "compress" is not supported: send it uncompressed or as gzip, deflate, br.',
    ],
    ['gzip', json(), 400, 'The request body could not be decoded as gzip.'],
    ['deflate', json(), 400, 'The request body could not be decoded as deflate.'],
    ['br', json(), 400, 'The request body could not be decoded as br.'],
  ])('%s on a plain body', async (encoding, body, status, message) => {
    for (const path of ['/v1/auth/customer/send-otp', '/graphql']) {
      const answer = await post(path, body, { 'content-encoding': encoding });
      expect(answer).toEqual({ status, body: { message } });
    }
    expect(records.filter((r) => (r.level as number) >= 50)).toEqual([]);
    expect(records.filter((r) => r.msg === 'request body refused')).toEqual([
      expect.objectContaining({ level: 30, status, path: '/v1/auth/customer/send-otp' }),
      expect.objectContaining({ level: 30, status, path: '/graphql' }),
    ]);
  });

  it('a gzip body that is gzip is read as before', async () => {
    const answer = await post('/v1/auth/customer/send-otp', zlib.gzipSync(json()), { 'content-encoding': 'gzip' });
    expect(answer.status).toBe(202);
  });

  it('an unsupported charset is 415', async () => {
    const answer = await post('/v1/auth/customer/send-otp', json(), { 'content-type': 'application/json; charset=ebcdic' });
    expect(answer).toEqual({ status: 415, body: { message: 'The request body must be UTF-8 JSON.' } });
  });
});
