/**
 * A notification channel's contract: it sends one message and says what became of it; the
 * worker (worker.ts) decides about retries and records it. The channels: channels.ts.
 */
import type { NotificationChannel } from './notification.entity';

export interface OutgoingMessage {
  /** The channel's address: a push token, an E.164 phone number, a Web Push endpoint. */
  to: string;
  /** Web Push: the browser's keys the payload is encrypted to. */
  keys?: { p256dh: string; auth: string };
  title: string;
  body: string;
  /**
   * The deep link: type (the kind), order_id, status; seq grows with the order's events (the outbox
   * row's id, as text: FCM's data values are strings), so an app that showed a higher one for the order drops this one.
   */
  data: { type: string; order_id: string; status: string; seq: string };
  /** WhatsApp templates take the facts as parameters rather than the text. */
  parameters: string[];
  locale: string;
}

export type Outcome =
  | { ok: true }
  /** `retry`: worth trying again later (after `retryAfterMs` when the service said so); `invalidTarget`: the address is dead. */
  | { ok: false; error: string; retry: boolean; retryAfterMs?: number; invalidTarget?: boolean };

export interface Channel {
  send(message: OutgoingMessage): Promise<Outcome>;
  /** The longest a send takes before it fails (unset: at once, as the log's): the worker starts none its claim's lease could not cover. */
  readonly deadlineMs?: number;
}

export type Channels = Partial<Record<NotificationChannel, Channel>>;

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
export function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
