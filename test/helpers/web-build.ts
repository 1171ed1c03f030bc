/**
 * The pages' front end (web/, built by Vite into dist/web) as the tests serve it: built once
 * before the suite when missing or older than its sources, the same command as npm run build.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const OUT = path.join(ROOT, 'dist', 'web');
const STAMP = path.join(OUT, '.built-from');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

export function ensureWebBuild(): void {
  const sources = Math.max(newestSource(path.join(ROOT, 'web')), fs.statSync(path.join(ROOT, 'package-lock.json')).mtimeMs);
  if (fs.existsSync(STAMP) && fs.statSync(STAMP).mtimeMs >= sources) return;
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.mts'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  fs.writeFileSync(STAMP, `built by the test suite at ${new Date().toISOString()}\n`);
}
