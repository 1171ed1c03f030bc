/**
 * Writes schema.graphql from the code-first schema; with --check, fails when the committed
 * file differs (CI and a test use the same comparison).
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { buildAppSchema, printAppSchema } from '../src/schema';

async function main() {
  const file = path.resolve(__dirname, '..', 'schema.graphql');
  const printed = printAppSchema(await buildAppSchema());
  if (process.argv.includes('--check')) {
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (committed !== printed) {
      console.error('schema.graphql is out of date: run `npm run schema:print` and commit it.');
      process.exit(1);
    }
    console.log('schema.graphql is up to date.');
    return;
  }
  fs.writeFileSync(file, printed);
  console.log(`Wrote ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
