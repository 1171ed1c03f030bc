/**
 * One server per test file: started before its tests, closed after, tables emptied before
 * each test (hooks a file declares later run after the emptying).
 */
import { Factory } from './factories';
import { startTestServer, TestClock, TestServer } from './server';
import { Clock } from '../../src/common/clock';

export function useTestServer(
  ready: (server: TestServer, make: Factory) => void,
  env: Record<string, string> = {},
  options: { clock?: Clock } = {},
): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(env, undefined, options);
    ready(server, new Factory(server.db));
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    await server!.reset();
  });
}

/** useTestServer on a clock the file's tests set (`clock.set(instant)`); back to the system clock after each test. */
export function useClockedTestServer(ready: (server: TestServer, make: Factory) => void, env: Record<string, string> = {}): TestClock {
  const clock = new TestClock();
  useTestServer(ready, env, { clock });
  afterEach(() => clock.set(null));
  return clock;
}

/** How a file's server is started: useTestServer, or a hook that starts a fake beside it (payments). */
export type ServerHook = (ready: (server: TestServer, make: Factory) => void, env: Record<string, string>) => void;

/** The file's server and factory, and the world its tests start from under the name `K`. */
export type WorldContext<K extends string, W> = { readonly server: TestServer; readonly make: Factory } & { readonly [P in K]: W };

/**
 * A file's server plus a world built afresh before each test, after the tables are emptied:
 * `const t = useWorld('owner', makeOwner)` gives `t.server`, `t.make` and `t.owner`. They are
 * getters, as the hooks set them: tests and hooks read them, the file's top level cannot.
 */
export function useWorld<K extends string, W>(
  key: K,
  build: (server: TestServer, make: Factory) => Promise<W>,
  env: Record<string, string> = {},
  useServer: ServerHook = useTestServer,
): WorldContext<K, W> {
  let server: TestServer | undefined;
  let make: Factory | undefined;
  let world: W | undefined;
  useServer((s, f) => {
    server = s;
    make = f;
  }, env);
  const context = {
    get server() {
      return setByHooks(server, 'server');
    },
    get make() {
      return setByHooks(make, 'make');
    },
  };
  // Declared after the server's hooks: it runs after the tables are emptied.
  beforeEach(async () => {
    world = await build(context.server, context.make);
  });
  return Object.defineProperty(context, key, { get: () => setByHooks(world, key), enumerable: true }) as WorldContext<K, W>;
}

function setByHooks<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`${name} is set by the test hooks: read it inside a test or a hook`);
  return value;
}
