/** Real HTTP calls with fetch; answers carry status, headers and parsed JSON. */
export interface HttpAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  /** A raw body sent as is (malformed JSON tests). */
  raw?: string;
}

export class HttpClient {
  constructor(readonly baseUrl: string) {}

  get = (path: string, opts: RequestOptions = {}) => this.request('GET', path, undefined, opts);
  post = (path: string, body?: unknown, opts: RequestOptions = {}) => this.request('POST', path, body, opts);
  put = (path: string, body?: unknown, opts: RequestOptions = {}) => this.request('PUT', path, body, opts);
  delete = (path: string, opts: RequestOptions = {}) => this.request('DELETE', path, undefined, opts);

  /** POST /graphql; answers `{ data, errors }` as sent. */
  graphql = (query: string, variables?: Record<string, unknown>, opts: RequestOptions = {}) =>
    this.request('POST', '/graphql', { query, variables }, opts);

  async request(method: string, path: string, body: unknown, opts: RequestOptions): Promise<HttpAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const payload = opts.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the test sees the text
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }
}
