/**
 * Where `npm run build` (Vite, web/vite.config.mts) writes the browser pages: dist/web at the
 * project root. Found by walking up from this file, so it is the same from src/ (tests) and
 * dist/src/ (npm start).
 */
import fs from 'node:fs';
import path from 'node:path';

export function projectRoot(from = __dirname): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

export const WEB_BUILD_DIR = path.join(projectRoot(), 'dist', 'web');

/** The built page's HTML, or undefined when the front end has not been built. */
export function builtPage(name: 'dashboard' | 'graphiql', dir = WEB_BUILD_DIR): string | undefined {
  const file = path.join(dir, name, 'index.html');
  return fs.existsSync(file) ? file : undefined;
}
