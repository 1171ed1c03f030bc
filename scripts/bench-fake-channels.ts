/**
 * The outbound channels of a bench's or the peak's service, pointed at a local fake (loopback
 * only). In production mode without credentials FCM, Web Push and Stripe are off; WhatsApp is on
 * (BENCH_SERVICE_ENV gives it an account), and it is where the notifications of every user
 * without a device go (a new order's owner, each step's customer): left at its default, the real
 * API's address, every send failed on a name lookup and was retried with backoff, work that is
 * not the service's under load and that no deployment does. Here it answers as the API does, in
 * this process (a few messages per checkout or step), counting what it received.
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';

export interface FakeChannels {
  /** The service's environment for them (WHATSAPP_API_URL: the sign-in codes and the notifications alike). */
  env: Record<string, string>;
  /** Messages answered so far. */
  received(): number;
  stop(): Promise<void>;
}

export async function startFakeChannels(): Promise<FakeChannels> {
  let received = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      received += 1;
      let to = '';
      try {
        const parsed = (JSON.parse(raw) as { to?: unknown }).to;
        if (typeof parsed === 'string') to = parsed;
      } catch {
        // not JSON: answered all the same
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: `wamid.${received}` }] }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    env: { WHATSAPP_API_URL: `http://127.0.0.1:${port}/v21.0` },
    received: () => received,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
