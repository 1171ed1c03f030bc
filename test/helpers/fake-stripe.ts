/**
 * A local stand-in for Stripe's PaymentIntents API, driven by the real `stripe` SDK (pointed here
 * with STRIPE_API_URL). It records every request (form parameters and Idempotency-Key), honours
 * idempotency keys like Stripe (same key, same answer), and answers on demand: success,
 * requires_action, 500, or no answer at all (a timeout). `confirm` plays the app's SDK
 * (authorised, 3-D Secure, declined); `event` and `sign` build webhooks signed the way Stripe
 * signs them.
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export const FAKE_STRIPE_KEYS = {
  STRIPE_SECRET_KEY: 'sk_test_fake0123456789',
  STRIPE_PUBLISHABLE_KEY: 'pk_test_fake0123456789',
  STRIPE_WEBHOOK_SECRET: 'whsec_fake0123456789',
};

export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey?: string;
  params: Record<string, string>;
}

type Mode = 'ok' | 'requires_action' | 'timeout' | 500;
type Intent = Record<string, any>;

export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  readonly intents = new Map<string, Intent>();
  private answers = new Map<string, { status: number; body: unknown }>();
  private createModes: Mode[] = [];
  private captureModes: Mode[] = [];
  private held: http.ServerResponse[] = [];
  /** Where `POST /_fake/payment_intents/:id/confirm` sends the signed event (npm run fake-stripe). */
  webhookUrl?: string;
  private counter = 0;
  private server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => this.handle(req, res, raw));
  });

  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  reset(): void {
    this.release();
    this.requests.length = 0;
    this.intents.clear();
    this.answers.clear();
    this.createModes = [];
    this.captureModes = [];
  }

  /** How the next PaymentIntent creations answer (then `ok`). */
  nextCreate(...modes: Mode[]): void {
    this.createModes.push(...modes);
  }

  /** How the next captures answer (then `ok`); `timeout`: not answered, and not captured. */
  nextCapture(...modes: Mode[]): void {
    this.captureModes.push(...modes);
  }

  /** Requests to one path pattern, e.g. `POST /v1/payment_intents`. */
  calls(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  /** Plays the app's SDK confirming the card: authorised, 3-D Secure asked, or declined. */
  confirm(id: string, outcome: 'authorized' | 'requires_action' | 'declined'): Intent {
    const intent = this.intents.get(id)!;
    if (outcome === 'authorized')
      Object.assign(intent, { status: 'requires_capture', amount_capturable: intent.amount, last_payment_error: null });
    if (outcome === 'requires_action') Object.assign(intent, { status: 'requires_action', next_action: { type: 'use_stripe_sdk' } });
    if (outcome === 'declined') {
      Object.assign(intent, {
        status: 'requires_payment_method',
        last_payment_error: {
          type: 'card_error',
          code: 'card_declined',
          decline_code: 'insufficient_funds',
          message: 'Your card has insufficient funds.',
        },
      });
    }
    return { ...intent };
  }

  /** The authorisation ran out at the bank (Stripe cancels uncaptured intents after 7 days). */
  expire(id: string): void {
    Object.assign(this.intents.get(id)!, { status: 'canceled', cancellation_reason: 'automatic', amount_capturable: 0 });
  }

  /** An event as Stripe sends it. */
  event(type: string, object: Intent, id = `evt_${++this.counter}`): Record<string, unknown> {
    return {
      id,
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: Math.floor(Date.now() / 1000),
      type,
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
    };
  }

  /** A Stripe-Signature header for `payload`, signed with `secret` at `timestamp` (seconds). */
  static sign(payload: string, secret = FAKE_STRIPE_KEYS.STRIPE_WEBHOOK_SECRET, timestamp?: number): string {
    return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  }

  private release(): void {
    for (const res of this.held) res.destroy();
    this.held = [];
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const key = req.headers['idempotency-key'] as string | undefined;
    const params = Object.fromEntries(new URLSearchParams(raw));
    this.requests.push({ method: req.method ?? '', path: url.pathname, idempotencyKey: key, params });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${this.counter}` });
      res.end(JSON.stringify(body));
    };
    const replay = key && req.method === 'POST' ? this.answers.get(`${url.pathname} ${key}`) : undefined;
    if (replay) return send(replay.status, replay.body);
    const answer = (status: number, body: unknown) => {
      if (key && status < 500) this.answers.set(`${url.pathname} ${key}`, { status, body });
      send(status, body);
    };

    const control = /^\/_fake\/payment_intents\/(pi_\w+)\/confirm$/.exec(url.pathname);
    if (control && req.method === 'POST')
      return void this.confirmAndNotify(control[1], url.searchParams.get('outcome') ?? 'authorized', send);
    const match = /^\/v1\/payment_intents(?:\/(pi_\w+))?(?:\/(capture|cancel))?$/.exec(url.pathname);
    if (!match)
      return send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname})` } });
    const [, id, action] = match;
    if (!id && req.method === 'POST') {
      const mode = this.createModes.shift() ?? 'ok';
      if (mode === 500) return send(500, { error: { type: 'api_error', message: 'Simulated Stripe outage' } });
      const intent = this.create(params, mode);
      if (mode === 'timeout') {
        // Created, but the answer never comes back: what a retry with the same key must find.
        if (key) this.answers.set(`${url.pathname} ${key}`, { status: 200, body: intent });
        this.held.push(res);
        return;
      }
      return answer(200, intent);
    }
    const intent = id ? this.intents.get(id) : undefined;
    if (!intent)
      return send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${id}'` } });
    if (req.method === 'GET') return send(200, intent);
    if (action === 'capture') {
      const mode = this.captureModes.shift() ?? 'ok';
      if (mode === 500) return send(500, { error: { type: 'api_error', message: 'Simulated Stripe outage' } });
      if (mode === 'timeout') {
        // Never answered and never done: a caller killed while it waits leaves the capture asked.
        this.held.push(res);
        return;
      }
      if (intent.status !== 'requires_capture') return answer(400, unexpectedState(intent));
      const amount = Number(params.amount_to_capture ?? intent.amount);
      Object.assign(intent, {
        status: 'succeeded',
        amount_received: amount,
        amount_capturable: 0,
        latest_charge: `ch_${intent.id.slice(3)}`,
      });
      return answer(200, intent);
    }
    if (action === 'cancel') {
      if (['succeeded', 'canceled'].includes(intent.status)) return answer(400, unexpectedState(intent));
      Object.assign(intent, {
        status: 'canceled',
        cancellation_reason: params.cancellation_reason ?? 'requested_by_customer',
        amount_capturable: 0,
      });
      return answer(200, intent);
    }
    return send(400, { error: { type: 'invalid_request_error', message: 'Unsupported request' } });
  }

  /** The app's confirmation and Stripe's webhook in one step, for trying the service by hand. */
  private async confirmAndNotify(id: string, outcome: string, send: (status: number, body: unknown) => void) {
    if (!this.intents.has(id) || !['authorized', 'requires_action', 'declined'].includes(outcome)) {
      return send(404, { error: { message: `No such payment_intent or outcome: ${id} ${outcome}` } });
    }
    const intent = this.confirm(id, outcome as 'authorized');
    const type = {
      authorized: 'payment_intent.amount_capturable_updated',
      requires_action: 'payment_intent.requires_action',
      declined: 'payment_intent.payment_failed',
    }[outcome]!;
    let webhook: unknown = null;
    if (this.webhookUrl) {
      const payload = JSON.stringify(this.event(type, intent));
      const res = await fetch(this.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': FakeStripe.sign(payload) },
        body: payload,
      });
      webhook = { status: res.status, body: await res.json().catch(() => null) };
    }
    send(200, { intent, webhook });
  }

  private create(params: Record<string, string>, mode: Mode): Intent {
    const n = ++this.counter;
    const id = `pi_fake${n}`;
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) {
      const m = /^metadata\[(\w+)\]$/.exec(k);
      if (m) metadata[m[1]] = v;
    }
    const intent: Intent = {
      id,
      object: 'payment_intent',
      amount: Number(params.amount),
      amount_capturable: 0,
      amount_received: 0,
      currency: params.currency,
      capture_method: params.capture_method,
      client_secret: `${id}_secret_${n}`,
      status: mode === 'requires_action' ? 'requires_action' : 'requires_payment_method',
      next_action: mode === 'requires_action' ? { type: 'use_stripe_sdk' } : null,
      last_payment_error: null,
      metadata,
      livemode: false,
      created: Math.floor(Date.now() / 1000),
    };
    this.intents.set(id, intent);
    return { ...intent };
  }
}

const unexpectedState = (intent: Intent) => ({
  error: {
    type: 'invalid_request_error',
    code: 'payment_intent_unexpected_state',
    message: `This PaymentIntent's status is ${intent.status}.`,
    payment_intent: intent,
  },
});
