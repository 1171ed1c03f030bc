/**
 * A local stand-in for the WhatsApp Cloud API: records each message request, answers like the
 * real API, and fails on demand.
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';

export interface RecordedMessage {
  path: string;
  authorization?: string;
  body: any;
}

export class FakeWhatsApp {
  readonly messages: RecordedMessage[] = [];
  private failures: number[] = [];
  private server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const failure = this.failures.shift();
      if (failure) {
        res.writeHead(failure, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Simulated failure', type: 'OAuthException', code: 131000 } }));
        return;
      }
      const body = JSON.parse(raw);
      this.messages.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          messaging_product: 'whatsapp',
          contacts: [{ input: body.to, wa_id: body.to }],
          messages: [{ id: `wamid.${this.messages.length}` }],
        }),
      );
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v21.0`;
  }

  reset(): void {
    this.messages.length = 0;
    this.failures = [];
  }

  /** The next `count` requests answer `status`. */
  failNext(status = 500, count = 1): void {
    this.failures.push(...Array(count).fill(status));
  }

  /** The code in the latest message to `phone` (E.164). */
  lastCodeFor(phone: string): string {
    const to = phone.replace(/^\+/, '');
    const message = [...this.messages].reverse().find((m) => m.body.to === to);
    if (!message) throw new Error(`no message was sent to ${phone}`);
    return message.body.template.components[0].parameters[0].text;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
