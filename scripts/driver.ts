/**
 * Operator command: make a user a driver (registering the phone when new).
 *   npm run driver -- create --phone +212612345678 [--first-name Omar --last-name Idrissi]
 * Uses DATABASE_URL, or the embedded database in DATA_DIR (default .data).
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { createDriver } from '../src/modules/drivers/driver-admin.service';
import { runCommand } from './cli';

const { values, positionals } = parseArgs({
  options: { phone: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' } },
  allowPositionals: true,
});
if (positionals[0] !== 'create' || !values.phone) {
  console.error('usage: npm run driver -- create --phone +212612345678 [--first-name A --last-name B]');
  process.exitCode = 2;
} else {
  const phone = values.phone;
  runCommand(async (em) => {
    const driver = await createDriver(em, phone, { firstName: values['first-name'], lastName: values['last-name'] });
    console.log(`Driver ${driver.id} is ${phone}; they sign in with their phone and go online.`);
  });
}
