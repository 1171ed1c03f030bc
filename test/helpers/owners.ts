/** Store owners for management tests: a signed-in user who owns a store. */
import { Store } from '../../src/modules/stores/store.entity';
import { registerCustomer, SignedIn } from './auth';
import { Factory } from './factories';
import { TestServer } from './server';
import { useWorld } from './setup';

export interface Owner extends SignedIn {
  store: Store;
}

export async function makeOwner(server: TestServer, make: Factory, storeOver: Partial<Store> = {}): Promise<Owner> {
  const signedIn = await registerCustomer(server);
  const store = await make.store(storeOver);
  await server.db.orm.em.fork().execute(`update stores set owner_id = ? where id = ?`, [signedIn.user.id, store.id]);
  return { ...signedIn, store };
}

/** A file's server and a fresh owner before each test: `const t = useOwner()` gives `t.server`, `t.make` and `t.owner` (see useWorld). */
export function useOwner() {
  return useWorld('owner', makeOwner);
}

/** A fingerprint of the tables an owner can change: equal before and after means nothing changed. */
export async function managedTablesFingerprint(server: TestServer): Promise<string> {
  const em = server.db.orm.em.fork();
  const parts: string[] = [];
  for (const table of ['stores', 'menus', 'menu_categories', 'products', 'offers']) {
    const [row] = await em.execute<{ digest: string | null }[]>(
      `select md5(coalesce(string_agg(t::text, '|' order by t.id), '')) as digest from ${table} t`,
    );
    parts.push(`${table}:${row.digest}`);
  }
  return parts.join(' ');
}
