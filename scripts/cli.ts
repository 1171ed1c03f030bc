/**
 * What the operator commands share: the database they work on (DATABASE_URL, or the embedded
 * one in DATA_DIR, default .data), and how a refused request is told (AppError: its message
 * and fields, exit 1) apart from a crash (stack, exit 1).
 */
import 'reflect-metadata';
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../src/common/errors';
import { openDatabase } from '../src/db/orm';

export function runCommand(command: (em: EntityManager) => Promise<void>): void {
  (async () => {
    const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR ?? '.data' });
    try {
      await command(db.orm.em.fork());
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const fields = Object.entries(error.details.fields ?? {}).map(([field, messages]) => `\n  ${field}: ${messages.join(', ')}`);
      console.error(`${error.message}${fields.join('')}`);
      process.exitCode = 1;
    } finally {
      await db.close();
    }
  })().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
