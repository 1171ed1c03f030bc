/** Once before the whole suite: the browser pages are built (tests serve dist/web). */
import { ensureWebBuild } from './helpers/web-build';

export default function globalSetup(): void {
  ensureWebBuild();
}
