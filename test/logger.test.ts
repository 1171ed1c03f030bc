/** The logger's two formats: JSON lines, and pretty coloured one-liners for a terminal. */
import { PassThrough } from 'node:stream';
import { createLogger } from '../src/common/logger';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk) => (text += chunk));
  return { stream, text: () => text };
}

// ANSI colour codes, removed to read what a person sees.
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createLogger', () => {
  it('pretty: one coloured line per record (an error adds its stack below); a request reads "GET /path 200 1.2ms"', async () => {
    const out = capture();
    const logger = createLogger('info', 'pretty', out.stream);
    logger.child({ requestId: 'req-1' }).info({ method: 'GET', path: '/api/v1/stores/nearby', status: 200, durationMs: 12.345 }, 'request');
    logger.info({ port: 3000 }, 'listening');
    logger.warn({ err: new Error('boom') }, 'readiness check failed');
    await settle();
    const lines = out.text().trimEnd().split('\n');
    // eslint-disable-next-line no-control-regex -- the escape character is what is looked for
    expect(out.text()).toMatch(/\x1b\[/); // coloured
    expect(plain(lines[0])).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v1\/stores\/nearby 200 12\.3ms \{"requestId":"req-1"\}$/);
    expect(plain(lines[1])).toMatch(/INFO: listening \{"port":3000\}$/);
    expect(plain(lines[2])).toMatch(/WARN: readiness check failed\s*$/);
    // A person debugging wants the stack readable, one frame a line.
    expect(plain(lines.slice(3).join('\n'))).toMatch(/"message": "boom"[\s\S]*Error: boom\n\s+at /);
  });

  it('pretty still redacts tokens and codes', async () => {
    const out = capture();
    createLogger('info', 'pretty', out.stream).info(
      { headers: { authorization: 'Bearer secret-token' }, body: { code: '123456' } },
      'incoming',
    );
    await settle();
    expect(out.text()).not.toContain('secret-token');
    expect(out.text()).not.toContain('123456');
    expect(plain(out.text())).toContain('[redacted]');
  });

  it('json: one JSON object per line, as before', async () => {
    const out = capture();
    createLogger('info', 'json', out.stream).info({ method: 'GET', path: '/healthz', status: 200, durationMs: 1 }, 'request');
    await settle();
    expect(JSON.parse(out.text())).toMatchObject({ level: 30, msg: 'request', method: 'GET', path: '/healthz', status: 200 });
  });
});
