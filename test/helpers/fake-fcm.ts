/**
 * A local stand-in for Firebase Cloud Messaging HTTP v1: the OAuth2 token exchange of a service
 * account (it checks the signed JWT assertion against the account's public key) and
 * `POST /v1/projects/{project}/messages:send` (it checks the bearer token). It records every
 * message and answers on demand: UNREGISTERED / INVALID_ARGUMENT for chosen device tokens,
 * 429 with Retry-After, 500, no answer at all (held), or an answer that never ends (trickled). With `latency` set, each accepted send is
 * received (delivered to the device) and answered that many ms after it arrived, as FCM's own time
 * to handle a message varies: sends in flight together may then reach the device in any order.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

export interface ReceivedPush {
  project: string;
  token: string;
  notification: { title: string; body: string };
  data: { type: string; order_id: string; status: string; seq: string };
  at: number;
}

type Failure = { status: 429 | 500 | 503; retryAfter?: string };

export class FakeFcm {
  readonly project = 'fake-project';
  readonly received: ReceivedPush[] = [];
  /** Every send request, answered or not (what a crash test counts). */
  attempts = 0;
  tokenExchanges = 0;
  /** Device tokens answered 404 UNREGISTERED (or 400 INVALID_ARGUMENT). */
  readonly unregistered = new Set<string>();
  readonly invalid = new Set<string>();
  /** Called with each message accepted (npm run fake-fcm prints them). */
  onReceive?: (push: ReceivedPush) => void;
  /** Milliseconds before an accepted send is received and answered (unset: at once). */
  latency?: () => number;
  private failures: Failure[] = [];
  /** The messages of the requests held unanswered (what a sender killed mid-send had in flight). */
  readonly heldPushes: ReceivedPush[] = [];
  private holding = false;
  /** Sends still to be answered a byte at a time, never ending; the timers of those answering so. */
  private trickles = 0;
  private trickling: NodeJS.Timeout[] = [];
  private held: http.ServerResponse[] = [];
  private accessTokens = new Set<string>();
  private readonly keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  private url = '';
  private server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => this.answer(req, res, raw));
  });

  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The service account JSON whose key this fake trusts; its token_uri is this fake. */
  serviceAccount(): string {
    return JSON.stringify({
      type: 'service_account',
      project_id: this.project,
      client_email: 'notifications@fake-project.iam.gserviceaccount.com',
      private_key: this.keys.privateKey,
      token_uri: `${this.url}/token`,
    });
  }

  /** What the service needs to send here. */
  env(): Record<string, string> {
    return { FCM_SERVICE_ACCOUNT_JSON: this.serviceAccount(), FCM_API_URL: this.url };
  }

  reset(): void {
    this.release();
    this.received.length = 0;
    this.heldPushes.length = 0;
    this.attempts = 0;
    this.unregistered.clear();
    this.invalid.clear();
    this.failures = [];
    this.latency = undefined;
  }

  /** The next `count` sends answer `status` (429 with Retry-After `retryAfter` seconds). */
  failNext(status: Failure['status'], count = 1, retryAfter?: string): void {
    for (let i = 0; i < count; i++) this.failures.push({ status, retryAfter });
  }

  /** The next `count` sends are answered 200 and then a space every 50 ms, without end (an answer that never completes). */
  trickleNext(count = 1): void {
    this.trickles += count;
  }

  /** Sends are received but not answered until release() (an instance killed mid-send). */
  hold(): void {
    this.holding = true;
  }

  /** Answers nothing to the held requests: their connections are dropped. */
  release(): void {
    this.holding = false;
    this.trickles = 0;
    for (const timer of this.trickling) clearInterval(timer);
    this.trickling = [];
    for (const res of this.held) res.destroy();
    this.held = [];
  }

  get heldCount(): number {
    return this.held.length;
  }

  /** Pushes to one device token. */
  to(token: string): ReceivedPush[] {
    return this.received.filter((p) => p.token === token);
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const fcmError = (status: number, name: string, errorCode?: string) =>
      json(status, {
        error: {
          code: status,
          message: name,
          status: name,
          details: errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] : [],
        },
      });
    if (req.method === 'POST' && req.url === '/token') {
      const form = new URLSearchParams(raw);
      try {
        if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') throw new Error('grant_type');
        const claims = jwt.verify(form.get('assertion') ?? '', this.keys.publicKey, {
          algorithms: ['RS256'],
          audience: `${this.url}/token`,
        }) as {
          scope?: string;
        };
        if (claims.scope !== 'https://www.googleapis.com/auth/firebase.messaging') throw new Error('scope');
      } catch {
        return json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      }
      this.tokenExchanges++;
      const token = `ya29.fake-${randomBytes(12).toString('hex')}`;
      this.accessTokens.add(token);
      return json(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    const send = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !send) return json(404, { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } });
    this.attempts++;
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !this.accessTokens.has(bearer)) return fcmError(401, 'UNAUTHENTICATED');
    if (this.holding) {
      this.held.push(res);
      const { message } = JSON.parse(raw) as { message: Omit<ReceivedPush, 'project' | 'at'> };
      this.heldPushes.push({
        project: send[1],
        token: message.token,
        notification: message.notification,
        data: message.data,
        at: Date.now(),
      });
      return;
    }
    if (this.trickles > 0) {
      this.trickles--;
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
      this.trickling.push(timer);
      return;
    }
    const failure = this.failures.shift();
    if (failure) {
      res.writeHead(failure.status, {
        'content-type': 'application/json',
        ...(failure.retryAfter ? { 'retry-after': failure.retryAfter } : {}),
      });
      res.end(
        JSON.stringify({
          error: { code: failure.status, message: 'Simulated', status: failure.status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL' },
        }),
      );
      return;
    }
    const { message } = JSON.parse(raw) as { message: Omit<ReceivedPush, 'project' | 'at'> };
    if (this.unregistered.has(message.token)) return fcmError(404, 'NOT_FOUND', 'UNREGISTERED');
    if (this.invalid.has(message.token)) return fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT');
    const deliver = () => {
      const push: ReceivedPush = {
        project: send[1],
        token: message.token,
        notification: message.notification,
        data: message.data,
        at: Date.now(),
      };
      this.received.push(push);
      this.onReceive?.(push);
      json(200, { name: `projects/${send[1]}/messages/${this.received.length}` });
    };
    if (this.latency) setTimeout(deliver, this.latency());
    else deliver();
  }
}
