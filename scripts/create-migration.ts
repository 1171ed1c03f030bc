/**
 * Generates the next migration from the entities: applies the committed migrations to a
 * throwaway in-memory database, diffs it against the entities and writes migrations/*.ts.
 * Read the file before committing it.  Usage: npm run migration:create -- [name]
 */
import 'reflect-metadata';
import { openDatabase } from '../src/db/orm';

async function main() {
  const db = await openDatabase({});
  try {
    const migration = await db.orm.getMigrator().createMigration(undefined, false, false, process.argv[2]);
    if (!migration.fileName) console.log('No changes: the migrations already match the entities.');
    else console.log(`Wrote migrations/${migration.fileName}\n${migration.diff.up.join('\n')}`);
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
