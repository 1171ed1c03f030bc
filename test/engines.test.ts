/**
 * The Node versions package.json promises (`engines.node`) are true: every package the lockfile
 * installs on this platform accepts the lowest version of each line the range allows (else npm
 * warns EBADENGINE and the promise is one a dependency does not make), and so does the LTS the
 * README recommends for production. The Node running the tests is inside the promised range.
 */
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
  os?: string[];
  cpu?: string[];
  link?: boolean;
}

const declared: string = read('package.json').engines.node;
const lock: { packages: Record<string, LockEntry> } = read('package-lock.json');
/** The production line the README names (Node.js 24 LTS), at its first LTS release. */
const PRODUCTION_LTS = '24.11.0';

/** The lowest version of each alternative of the range (`^20.19.0 || >=24` → 20.19.0, 24.0.0). */
const floors = (range: string) =>
  new semver.Range(range).set.map((comparators) => semver.minVersion(comparators.map((c) => c.value).join(' '))!.version);

/** Installed here: not an optional package for another operating system or processor. */
const installsHere = (entry: LockEntry) =>
  (!entry.os || entry.os.includes(process.platform)) && (!entry.cpu || entry.cpu.includes(process.arch));

/** `name@version wants <range>` for every installed package whose engines exclude `node`. */
function refusing(node: string): string[] {
  const out: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where || entry.link || !installsHere(entry)) continue;
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (range && !semver.satisfies(node, range, { includePrerelease: true })) {
      out.push(`${where.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${range}`);
    }
  }
  return out;
}

describe('engines.node', () => {
  it('is the one the lockfile was written for', () => {
    expect((lock.packages[''].engines as { node: string }).node).toBe(declared);
  });

  it('holds the Node running these tests', () => {
    expect(semver.satisfies(process.version, declared)).toBe(true);
  });

  it.each(floors(declared))(`is accepted at its floor %s by every package installed (${declared})`, (floor) => {
    expect(refusing(floor)).toEqual([]);
  });

  it(`includes the production LTS (${PRODUCTION_LTS}), which every package accepts`, () => {
    expect(semver.satisfies(PRODUCTION_LTS, declared)).toBe(true);
    expect(refusing(PRODUCTION_LTS)).toEqual([]);
  });
});
