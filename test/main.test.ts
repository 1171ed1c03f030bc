/**
 * The real process behind `npm start`: src/main.ts compiled on the fly by @swc-node. It uses
 * the PostgreSQL server in DATABASE_URL when one is set (in a database of its own, created and
 * dropped here, so nothing is left in the shared one), else the embedded database in DATA_DIR.
 */
import { randomBytes } from 'node:crypto';
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onServer } from './helpers/database';

const ROOT = path.resolve(__dirname, '..');
const SERVER_URL = process.env.DATABASE_URL || undefined;

interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

interface Running {
  child: ChildProcess;
  /** Every stdout line so far, as written. */
  lines: string[];
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first JSON log line `match` accepts (rejects after `ms`, or when the process exits first). */
  waitForLog(match: (line: LogLine) => boolean, ms?: number): Promise<LogLine>;
}

const running = new Set<ChildProcess>();

function start(env: Record<string, string | undefined>): Running {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) childEnv[name] = value;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  let waiters: (() => void)[] = [];
  const wake = () => {
    const current = waiters;
    waiters = [];
    current.forEach((w) => w());
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts.filter((line) => line.trim() !== ''));
    wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      if (partial.trim()) lines.push(partial);
      partial = '';
      done = true;
      running.delete(child);
      wake();
      resolve({ code, signal });
    });
  });
  const parsed = () =>
    lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    waitForLog(match, ms = 45_000) {
      return new Promise<LogLine>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no matching log line after ${ms} ms.\nstdout:\n${lines.join('\n')}\nstderr:\n${stderr}`));
        }, ms);
        const check = () => {
          const found = parsed().find(match);
          if (found) {
            clearTimeout(timer);
            resolve(found);
          } else if (done) {
            clearTimeout(timer);
            reject(new Error(`the process exited first.\nstdout:\n${lines.join('\n')}\nstderr:\n${stderr}`));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}

/** Lines of stdout that are not JSON objects (pino writes one per line). */
const notJson = (lines: string[]) =>
  lines.filter((line) => {
    try {
      const value = JSON.parse(line);
      return typeof value !== 'object' || value === null || typeof value.level !== 'number';
    } catch {
      return true;
    }
  });

/** A database of the test's own on DATABASE_URL's server, dropped afterwards. */
async function withServerDatabase<T>(serverUrl: string, use: (url: string) => Promise<T>): Promise<T> {
  const url = new URL(serverUrl);
  const name = `${url.pathname.slice(1) || 'test'}_main_${process.pid}_${randomBytes(3).toString('hex')}`;
  await onServer(serverUrl, `drop database if exists "${name}" with (force)`);
  await onServer(serverUrl, `create database "${name}"`);
  url.pathname = `/${name}`;
  try {
    return await use(url.toString());
  } finally {
    await onServer(serverUrl, `drop database if exists "${name}" with (force)`);
  }
}

let tmp: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'main-test-'));
});

afterEach(async () => {
  // A test that failed half-way must not leave its process behind.
  for (const child of running) {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('npm start entry (src/main.ts)', () => {
  it('starts in development, answers /readyz, writes JSON logs and stops cleanly on SIGTERM', async () => {
    const dataDir = path.join(tmp, 'data');
    const run = async (databaseUrl: string | undefined) => {
      const app = start({
        ...process.env,
        NODE_ENV: 'development',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
      });
      const starting = await app.waitForLog((l) => l.msg === 'starting');
      expect(starting).toMatchObject({ env: 'development', database: databaseUrl ? 'postgresql' : `embedded (${dataDir})` });
      const listening = await app.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('listening'));
      const port = listening.port as number;
      expect(port).toBeGreaterThan(0);
      expect(listening.msg).toBe(`listening on http://localhost:${port} (REST, POST /graphql, ws /graphql)`);

      // One record per request, naming the path asked for (also under a mounted router).
      await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      });
      const request = await app.waitForLog((l) => l.msg === 'request');
      expect(request).toMatchObject({ method: 'POST', path: '/graphql', status: 200 });

      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      // With REDIS_URL in the environment the process uses Redis, and /readyz reports it.
      expect(await ready.json()).toEqual({ status: 'ready', ...(process.env.REDIS_URL && { redis: 'ok' }) });
      // The development test number is announced so that a fresh install can sign in.
      expect(app.lines.some((l) => l.includes('+15550000001') && l.includes('123456'))).toBe(true);
      // Start-up ends with the pages' addresses and the demo sign-in (a store owner and a customer).
      const messages = app.lines.map((l) => (JSON.parse(l) as LogLine).msg);
      const listeningAt = messages.findIndex((m) => typeof m === 'string' && m.startsWith('listening'));
      expect(messages.slice(listeningAt + 1, listeningAt + 5)).toEqual([
        `REST reference:    http://127.0.0.1:${port}/docs`,
        `GraphQL explorer:  http://127.0.0.1:${port}/graphql`,
        `Dashboard:         http://127.0.0.1:${port}/dashboard`,
        'Demo sign-in:      +15550001001 (store owner) or +15550000001 (customer), code 123456',
      ]);

      // The embedded database keeps its files in DATA_DIR; a PostgreSQL server leaves it alone.
      expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(!databaseUrl);

      expect(app.child.kill('SIGTERM')).toBe(true);
      const exit = await app.exited;
      expect(notJson(app.lines)).toEqual([]);
      expect(exit).toEqual({ code: 0, signal: null });
      const logs = app.lines.map((l) => JSON.parse(l) as LogLine);
      expect(logs.find((l) => l.msg === 'shutting down: draining connections')).toMatchObject({ signal: 'SIGTERM' });
      expect(logs[logs.length - 1]).toMatchObject({ msg: 'stopped', level: 30 });
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    };
    if (SERVER_URL) await withServerDatabase(SERVER_URL, run);
    else await run(undefined);
  }, 60_000);

  it('refuses to start in production without JWT_SECRET: exit code 1, the variable named on stderr', async () => {
    const dataDir = path.join(tmp, 'data');
    const app = start({
      ...process.env,
      NODE_ENV: 'production',
      JWT_SECRET: undefined,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
    });
    const exit = await app.exited;
    expect(exit).toEqual({ code: 1, signal: null });
    expect(app.stderr()).toContain('Invalid configuration:');
    expect(app.stderr()).toContain('JWT_SECRET is required in production');
    // Nothing started: no log line, no database.
    expect(app.lines).toEqual([]);
    expect(fs.existsSync(dataDir)).toBe(false);
  }, 60_000);
});
