/**
 * The REST table's rows found by method and path without Express's scan of the table: Express
 * tries every row's pattern in turn, each as a router layer (a closure, a `try`, a parameter
 * pass), which for a path near the end of the table cost more CPU than the rest of the routing
 * (issue 9, docs/decisions.md "City scale: the gateway's fixed cost per request").
 *
 * It answers what Express 5's router answers for the same request: the first row of the table
 * whose pattern matches, its parameters decoded. A pattern is matched as the router compiles
 * it by default (path-to-regexp 8, not case-sensitive, not strict: one trailing slash allowed):
 * `^(?:/literal/([^\/]+))(?:\/$)?$` with the `i` flag. Rows are bucketed by their number of
 * segments, a filter that never drops a row the pattern would match (the pattern matches only
 * paths of its own number of non-empty segments, with at most one trailing slash); within a
 * bucket each candidate is confirmed by its pattern, in table order. Where it cannot be sure
 * (a parameter that does not decode, which Express answers 400) it answers nothing and the
 * caller leaves the request to Express. test/rest-adapter.test.ts holds it to Express's own
 * routing on awkward paths.
 */

/** Patterns made of literal segments and `:name` parameters only (what the route table uses). */
const SIMPLE_PATTERN = /^(\/([\w.-]+|:\w+))+$/;

interface Entry<T> {
  pattern: RegExp;
  keys: string[];
  value: T;
}

export interface RouteHit<T> {
  value: T;
  params: Record<string, string>;
}

export class RouteIndex<T> {
  /** By method, then by number of segments; each list in table order. */
  private readonly buckets = new Map<string, Map<number, Entry<T>[]>>();

  /** Whether `path` is a pattern the index can take (others must be routed by Express). */
  static accepts(path: string): boolean {
    return SIMPLE_PATTERN.test(path);
  }

  /** Adds the next row of the table. */
  add(method: string, path: string, value: T): void {
    if (!RouteIndex.accepts(path)) throw new Error(`route index: ${path} is not made of literal segments and :name parameters`);
    const segments = path.split('/').slice(1);
    const keys: string[] = [];
    const source = segments
      .map((segment) => (segment.startsWith(':') ? (keys.push(segment.slice(1)), '/([^\\/]+)') : `/${escape(segment)}`))
      .join('');
    const byLength = this.buckets.get(method) ?? new Map<number, Entry<T>[]>();
    this.buckets.set(method, byLength);
    const bucket = byLength.get(segments.length) ?? [];
    byLength.set(segments.length, bucket);
    bucket.push({ pattern: new RegExp(`^(?:${source})(?:\\/$)?$`, 'i'), keys, value });
  }

  /** The first row that matches `method path` (a pathname, as `req.path` gives it), or undefined. */
  find(method: string, path: string): RouteHit<T> | undefined {
    const byLength = this.buckets.get(method);
    if (!byLength) return undefined;
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    let segments = 0;
    for (let i = 0; i < trimmed.length; i++) if (trimmed.charCodeAt(i) === 47 /* / */) segments++;
    for (const entry of byLength.get(segments) ?? []) {
      const match = entry.pattern.exec(path);
      if (!match) continue;
      // As path-to-regexp makes them (Express's req.params): no prototype.
      const params = Object.create(null) as Record<string, string>;
      for (let i = 0; i < entry.keys.length; i++) {
        const value = match[i + 1];
        if (value.includes('%')) {
          try {
            params[entry.keys[i]] = decodeURIComponent(value);
          } catch {
            return undefined;
          }
        } else params[entry.keys[i]] = value;
      }
      return { value: entry.value, params };
    }
    return undefined;
  }
}

const escape = (text: string) => text.replace(/[.+*?^${}()[\]|/\\]/g, '\\$&');
