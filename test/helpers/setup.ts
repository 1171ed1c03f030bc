/**
 * One server per test file: started before its tests, closed after, tables emptied before
 * each test (hooks a file declares later run after the emptying).
 */
import { Factory } from './factories';
import { startTestServer, TestServer } from './server';
import { Clock } from '../../src/common/clock';

export function useTestServer(ready: (server: TestServer, make: Factory) => void, env: Record<string, string> = {}, options: { clock?: Clock } = {}): void {
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
