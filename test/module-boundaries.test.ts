/**
 * Imports that would bring back the orders ↔ payments cycle, make orders or payments depend on
 * notifications (which describe them), or tie a payments service to the REST adapter.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SRC = join(__dirname, '..', 'src', 'modules');
const files = (folder: string) =>
  readdirSync(join(SRC, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: `${folder}/${f}`, text: readFileSync(join(SRC, folder, f), 'utf8') }));
const importsOf = (text: string) => [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]);

describe('module boundaries', () => {
  it('orders import nothing of payments (payments pay orders; the lifecycle reaches them through services.orderPayments)', () => {
    const offending = files('orders').flatMap(({ file, text }) =>
      importsOf(text)
        .filter((i) => i.includes('/payments/'))
        .map((i) => `${file} -> ${i}`),
    );
    expect(offending).toEqual([]);
  });

  it('orders and payments import nothing of notifications (they write through common/event-outbox.ts)', () => {
    const offending = [...files('orders'), ...files('payments')].flatMap(({ file, text }) =>
      importsOf(text)
        .filter((i) => i.includes('/notifications/'))
        .map((i) => `${file} -> ${i}`),
    );
    expect(offending).toEqual([]);
  });

  it('payments import nothing of rest/ except their REST rows (*.rest.ts)', () => {
    const offending = files('payments')
      .filter(({ file }) => !file.endsWith('.rest.ts'))
      .flatMap(({ file, text }) =>
        importsOf(text)
          .filter((i) => i.includes('/rest/'))
          .map((i) => `${file} -> ${i}`),
      );
    expect(offending).toEqual([]);
  });
});
