/**
 * Migration drift: applies the committed migrations to a throwaway in-memory database and asks
 * MikroORM for the difference between that schema and the entities. Anything but "nothing"
 * means an entity changed without its migration (run `npm run migration:create`) or a
 * migration changed what the entities do not say. Exits 1 on drift.
 */
import 'reflect-metadata';
import { openDatabase } from '../src/db/orm';

async function main() {
  const db = await openDatabase({});
  try {
    const diff = (await db.orm.schema.getUpdateSchemaSQL({ wrap: false })).trim();
    if (diff) {
      console.error(`The entities and the committed migrations differ; the missing migration would be:\n${diff}`);
      process.exitCode = 1;
    } else {
      console.log('Migrations match the entities.');
    }
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
