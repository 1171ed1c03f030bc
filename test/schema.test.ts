/** The committed schema.graphql is the contract clients read: it must match the code. */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { buildAppSchema, printAppSchema } from '../src/schema';

describe('schema.graphql', () => {
  it('equals the schema printed from the code', async () => {
    const file = path.resolve(__dirname, '..', 'schema.graphql');
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const printed = printAppSchema(await buildAppSchema());
    expect(printed).toMatch(/^# Generated from the code-first schema/);
    expect(printed).toContain('type Query {');
    if (committed !== printed) {
      const committedLines = committed.split('\n');
      const printedLines = printed.split('\n');
      const longest = Math.max(committedLines.length, printedLines.length);
      const line = Array.from({ length: longest }, (_, i) => i).find((i) => committedLines[i] !== printedLines[i]) ?? 0;
      throw new Error(
        `schema.graphql is out of date: run \`npm run schema:print\` and commit it.\n` +
          `First difference at line ${line + 1}:\n  committed: ${JSON.stringify(committedLines[line])}\n  printed:   ${JSON.stringify(printedLines[line])}`,
      );
    }
    expect(committed).toBe(printed);
  });
});
