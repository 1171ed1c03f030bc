/**
 * Operator command: make a user a driver (registering the phone when new).
 *   npm run driver -- create --phone +212612345678 [--first-name Omar --last-name Idrissi]
 * Uses DATABASE_URL, or the embedded database in DATA_DIR (default .data).
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { AppError } from '../src/common/errors';
import { openDatabase } from '../src/db/orm';
import { createDriver } from '../src/modules/drivers/driver-admin.service';

async function main() {
  const { values, positionals } = parseArgs({
    options: { phone: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals[0] !== 'create' || !values.phone) {
    console.error('usage: npm run driver -- create --phone +212612345678 [--first-name A --last-name B]');
    process.exitCode = 2;
    return;
  }
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR ?? '.data' });
  try {
    const driver = await createDriver(db.orm.em.fork(), values.phone, { firstName: values['first-name'], lastName: values['last-name'] });
    console.log(`Driver ${driver.id} is ${values.phone}; they sign in with their phone and go online.`);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    console.error(error.message, error.details.fields ?? '');
    process.exitCode = 1;
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
