/**
 * A local stand-in for a browser vendor's push service (RFC 8030) and the browser behind it.
 * `subscribe()` makes what a browser's PushManager would: an endpoint here and a P-256 key pair
 * with an auth secret; the server records every POST, checks its VAPID Authorization (an ES256
 * JWT for this origin, signed by the key it names) and decrypts the aes128gcm payload (RFC 8291)
 * with the subscription's private key, as the browser would. It answers 201, or 410/404/429/500
 * on demand.
 */
import { createECDH, createDecipheriv, createPublicKey, hkdfSync, randomBytes, randomUUID, ECDH } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

export interface ReceivedWebPush {
  endpoint: string;
  headers: http.IncomingHttpHeaders;
  /** The decrypted payload: what the dashboard's service worker shows. */
  payload: { title: string; body: string; data: { type: string; order_id: string; status: string; seq: string } };
  /** The VAPID key the request was signed with, and the JWT's claims. */
  vapid: { publicKey: string; claims: { aud: string; exp: number; sub: string } };
  at: number;
}

export interface FakeSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export class FakePushService {
  readonly received: ReceivedWebPush[] = [];
  /** Requests whose VAPID or encryption did not check out (a test expects none). */
  readonly problems: string[] = [];
  /** Endpoints answered 410 Gone (unsubscribed). */
  readonly gone = new Set<string>();
  /** Called with each push accepted (the browser test relays it to the service worker). */
  onReceive?: (push: ReceivedWebPush) => void;
  private failures: number[] = [];
  private readonly browsers = new Map<string, { ecdh: ECDH; auth: Buffer }>();
  url = '';
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => this.answer(req, res, Buffer.concat(chunks)));
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** WEB_PUSH_ALLOWED_ORIGINS for the service under test. */
  env(): Record<string, string> {
    return { WEB_PUSH_ALLOWED_ORIGINS: this.url };
  }

  reset(): void {
    this.received.length = 0;
    this.problems.length = 0;
    this.gone.clear();
    this.failures = [];
  }

  /** A new browser's subscription (PushSubscription.toJSON()), its endpoint on this service. */
  subscribe(): FakeSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const endpoint = `${this.url}/push/${randomUUID()}`;
    this.browsers.set(endpoint, { ecdh, auth });
    return { endpoint, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
  }

  /** The next `count` pushes answer `status`. */
  failNext(status: number, count = 1): void {
    for (let i = 0; i < count; i++) this.failures.push(status);
  }

  to(endpoint: string): ReceivedWebPush[] {
    return this.received.filter((p) => p.endpoint === endpoint);
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
    const endpoint = `${this.url}${req.url}`;
    const end = (status: number) => {
      res.writeHead(status);
      res.end();
    };
    const browser = this.browsers.get(endpoint);
    if (req.method !== 'POST' || !browser) return end(404);
    if (this.gone.has(endpoint)) return end(410);
    const failure = this.failures.shift();
    if (failure) return end(failure);
    try {
      const vapid = this.checkVapid(req.headers.authorization);
      if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`content-encoding ${req.headers['content-encoding']}`);
      if (!req.headers.ttl) throw new Error('no TTL header');
      const payload = JSON.parse(decrypt(body, browser.ecdh, browser.auth)) as ReceivedWebPush['payload'];
      const push = { endpoint, headers: req.headers, payload, vapid, at: Date.now() };
      this.received.push(push);
      this.onReceive?.(push);
      end(201);
    } catch (error) {
      this.problems.push((error as Error).message);
      end(400);
    }
  }

  /** `vapid t=<JWT>, k=<public key>` (RFC 8292): the JWT verifies with k, for this origin, not expired. */
  private checkVapid(header: string | undefined): ReceivedWebPush['vapid'] {
    const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
    if (!match) throw new Error(`Authorization is not VAPID: ${header}`);
    const point = Buffer.from(match[2], 'base64url');
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
      format: 'jwk',
    });
    const claims = jwt.verify(match[1], key, { algorithms: ['ES256'], audience: this.url }) as ReceivedWebPush['vapid']['claims'];
    if (!/^(mailto:|https:)/.test(claims.sub)) throw new Error(`VAPID sub ${claims.sub}`);
    return { publicKey: match[2], claims };
  }
}

/** RFC 8291 aes128gcm, one record: salt(16) rs(4) idlen(1) keyid(sender's public key) ciphertext. */
function decrypt(body: Buffer, ecdh: ECDH, authSecret: Buffer): string {
  const salt = body.subarray(0, 16);
  const idLength = body[20];
  const senderKey = body.subarray(21, 21 + idLength);
  const cipherText = body.subarray(21 + idLength);
  const secret = ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(cipherText.subarray(cipherText.length - 16));
  const plain = Buffer.concat([decipher.update(cipherText.subarray(0, cipherText.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2, then padding zeros.
  const end = plain.lastIndexOf(2);
  return plain.subarray(0, end).toString('utf8');
}
