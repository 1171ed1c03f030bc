/**
 * A local stand-in for the WhatsApp Cloud API: records each message request, answers like the
 * real API, and fails on demand: an error status, no answer at all (held), or an answer that
 * never ends (trickled).
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
  /** Requests still to be left unanswered, and those to be answered 200 then a space every 50 ms without end. */
  private silences = 0;
  private trickles = 0;
  private trickling: NodeJS.Timeout[] = [];
  /** How many requests were received and never fully answered (held or trickled). */
  unanswered = 0;
  private server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (this.silences > 0) {
        this.silences--;
        this.unanswered++;
        return;
      }
      if (this.trickles > 0) {
        this.trickles--;
        this.unanswered++;
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
        this.trickling.push(timer);
        return;
      }
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
    this.silences = 0;
    this.trickles = 0;
    this.unanswered = 0;
    this.stopTrickling();
  }

  /** The next `count` requests answer `status`. */
  failNext(status = 500, count = 1): void {
    this.failures.push(...Array(count).fill(status));
  }

  /** The next `count` requests are received and never answered. */
  holdNext(count = 1): void {
    this.silences += count;
  }

  /** The next `count` requests are answered 200 and then a space every 50 ms, without end. */
  trickleNext(count = 1): void {
    this.trickles += count;
  }

  private stopTrickling(): void {
    for (const timer of this.trickling) clearInterval(timer);
    this.trickling = [];
  }

  /** The code in the latest message to `phone` (E.164). */
  lastCodeFor(phone: string): string {
    const to = phone.replace(/^\+/, '');
    const message = [...this.messages].reverse().find((m) => m.body.to === to);
    if (!message) throw new Error(`no message was sent to ${phone}`);
    return message.body.template.components[0].parameters[0].text;
  }

  async stop(): Promise<void> {
    this.stopTrickling();
    // Held and trickled requests' connections never end by themselves.
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
