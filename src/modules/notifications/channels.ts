/**
 * Where notifications go: the channels behind channel.ts's one small interface (FCM, WhatsApp,
 * the log here; Web Push in web-push-channel.ts), and which of them the configuration enables.
 */
import jwt from 'jsonwebtoken';
import type { Config, VapidKeys } from '../../config';
import { Answer, answeredOk as ok, KeptAlivePoster } from '../../common/kept-alive-poster';
import type { Logger } from '../../common/logger';
import { within } from '../../common/within';
import { Channel, Channels, OutgoingMessage, Outcome, retryAfter } from './channel';
import { WebPushChannel } from './web-push-channel';

/** Development without FCM credentials: the notification is written to the log. */
export class LogChannel implements Channel {
  constructor(
    private readonly logger: Logger,
    private readonly name: string,
  ) {}
  send(message: OutgoingMessage): Promise<Outcome> {
    this.logger.info(
      { channel: this.name, to: message.to.slice(0, 12), ...message.data, title: message.title },
      `notification: ${message.body}`,
    );
    return Promise.resolve({ ok: true });
  }
}

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/**
 * Firebase Cloud Messaging, HTTP v1: an OAuth2 access token from the service account (a signed
 * JWT exchanged at its token_uri, kept until shortly before it expires), then
 * `POST {apiUrl}/v1/projects/{project}/messages:send` per device token, over kept-alive
 * connections (common/kept-alive-poster.ts). Each request fails past `deadlineMs`.
 */
export class FcmChannel implements Channel {
  private token: { value: string; until: number } | null = null;
  private pendingToken: Promise<string> | null = null;

  constructor(
    private readonly config: NonNullable<Config['notifications']['fcm']>,
    readonly deadlineMs = config.timeoutMs,
  ) {}

  private readonly poster = new KeptAlivePoster(() => this.deadlineMs);

  private post(url: string, headers: Record<string, string>, body: string, deadlineMs?: number): Promise<Answer> {
    return this.poster.post(url, headers, body, deadlineMs);
  }

  /** The access token, unless none is held or it is about to expire. */
  private tokenInHand(): string | null {
    return this.token && this.token.until > Date.now() ? this.token.value : null;
  }

  private accessToken(): Promise<string> {
    const inHand = this.tokenInHand();
    if (inHand !== null) return Promise.resolve(inHand);
    return (this.pendingToken ??= this.exchange().finally(() => (this.pendingToken = null)));
  }

  private async exchange(): Promise<string> {
    const { account, tokenUrl } = this.config;
    const now = Math.floor(Date.now() / 1000);
    const assertion = jwt.sign(
      { iss: account.client_email, scope: FCM_SCOPE, aud: tokenUrl, iat: now, exp: now + 3600 },
      account.private_key,
      {
        algorithm: 'RS256',
      },
    );
    const response = await this.post(
      tokenUrl,
      { 'content-type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    );
    const body = response.json as { access_token?: string; expires_in?: number };
    if (!ok(response) || !body.access_token) throw new Error(`FCM token exchange answered ${response.status}`);
    // Renewed a minute early, so a send never carries a token about to expire.
    this.token = { value: body.access_token, until: Date.now() + Math.max(0, (body.expires_in ?? 3600) - 60) * 1000 };
    return body.access_token;
  }

  /** Where every message goes (built once: it is the same for each send). */
  private readonly sendUrl = `${this.config.apiUrl.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(this.config.account.project_id)}/messages:send`;

  async send(message: OutgoingMessage): Promise<Outcome> {
    // One deadline for the whole send: the token's exchange (when one is due, or another send's is
    // under way) and the message share it, so a send never outlasts `deadlineMs` (the worker's lease).
    const until = Date.now() + this.deadlineMs;
    // A token in hand is used at once: the race against the deadline (a timer and four promises,
    // each paying the async hooks in the service) is for a send that has to wait for one.
    let token = this.tokenInHand();
    if (token === null) {
      try {
        token = await within(this.accessToken(), until - Date.now(), `no access token within the send's deadline`);
      } catch (error) {
        return { ok: false, retry: true, error: (error as Error).message };
      }
    }
    let response: Answer;
    try {
      response = await this.post(
        this.sendUrl,
        { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        JSON.stringify({
          message: {
            token: message.to,
            notification: { title: message.title, body: message.body },
            data: message.data,
            android: { priority: 'high' },
            apns: { headers: { 'apns-priority': '10' } },
          },
        }),
        until - Date.now(),
      );
    } catch (error) {
      return { ok: false, retry: true, error: `FCM unreachable: ${(error as Error).message}` };
    }
    if (ok(response)) return { ok: true };
    const detail = response.json as {
      error?: { status?: string; message?: string; details?: { errorCode?: string }[] };
    };
    const code = detail.error?.details?.find((d) => d.errorCode)?.errorCode ?? detail.error?.status ?? '';
    const error = `FCM answered ${response.status} ${code}`.trim();
    if (code === 'UNREGISTERED' || code === 'INVALID_ARGUMENT' || response.status === 404) {
      return { ok: false, retry: false, invalidTarget: true, error };
    }
    if (response.status === 401) this.token = null; // a revoked or expired token: exchange again
    const retryable = response.status === 401 || response.status === 429 || response.status >= 500;
    return { ok: false, retry: retryable, error, retryAfterMs: retryAfter(response.retryAfter) };
  }
}

/**
 * WhatsApp Cloud API (the client of the sign-in codes' account): an approved template per kind,
 * its body parameters the order number, store, items and total; over kept-alive connections as FCM's.
 */
export class WhatsAppChannel implements Channel {
  private readonly poster = new KeptAlivePoster(() => this.deadlineMs);

  constructor(
    private readonly config: Config['whatsapp'],
    private readonly templates: Record<string, string>,
    private readonly kind: (message: OutgoingMessage) => string = (m) => m.data.type,
    readonly deadlineMs = config.timeoutMs,
  ) {}

  async send(message: OutgoingMessage): Promise<Outcome> {
    const template = this.templates[this.kind(message)];
    if (!template) return { ok: false, retry: false, error: `no WhatsApp template for ${message.data.type}` };
    const url = `${this.config.apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(this.config.phoneNumberId)}/messages`;
    let response: Answer;
    try {
      response = await this.poster.post(
        url,
        { authorization: `Bearer ${this.config.accessToken}`, 'content-type': 'application/json' },
        JSON.stringify({
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: message.to.replace(/^\+/, ''),
          type: 'template',
          template: {
            name: template,
            language: { code: message.locale === 'fr' ? 'fr' : 'en_US' },
            components: [{ type: 'body', parameters: message.parameters.map((text) => ({ type: 'text', text })) }],
          },
        }),
      );
    } catch (error) {
      return { ok: false, retry: true, error: `WhatsApp unreachable: ${(error as Error).message}` };
    }
    if (ok(response)) return { ok: true };
    return {
      ok: false,
      retry: response.status === 429 || response.status >= 500,
      error: `WhatsApp API answered ${response.status}`,
      retryAfterMs: retryAfter(response.retryAfter),
    };
  }
}

/**
 * A send's deadline: its channel's timeout, but at most half the worker's claim lease, so that a
 * claimed row is sent (or failed) and recorded before another instance may claim it again.
 */
export const sendDeadline = (timeoutMs: number, leaseSeconds: number) => Math.min(timeoutMs, leaseSeconds * 500);

/**
 * The channels the configuration enables (once per app, at startup). A channel's timeout longer
 * than half the lease is cut to it (`sendDeadline`) and said here, once, rather than silently: a
 * short lease (the crash test's, the cluster's) with the default timeouts is a valid setting, so
 * it is not refused; WhatsApp's still applies in full to the sign-in codes.
 */
export function createChannels(config: Config, logger: Logger, vapid: VapidKeys | null): Channels {
  const { fcm, whatsappTemplates, leaseSeconds } = config.notifications;
  const deadline = (setting: string, timeoutMs: number) => {
    const deadlineMs = sendDeadline(timeoutMs, leaseSeconds);
    if (deadlineMs < timeoutMs) {
      logger.warn(
        { setting, configuredMs: timeoutMs, deadlineMs, leaseSeconds },
        `notifications: ${setting} is cut to half of NOTIFICATIONS_LEASE_SECONDS`,
      );
    }
    return deadlineMs;
  };
  const push: Channel | undefined = fcm
    ? new FcmChannel(fcm, deadline('FCM_TIMEOUT_MS', fcm.timeoutMs))
    : config.env === 'development'
      ? new LogChannel(logger, 'push')
      : undefined;
  const whatsappReady = Boolean(config.whatsapp.phoneNumberId && config.whatsapp.accessToken);
  const whatsapp = whatsappReady
    ? new WhatsAppChannel(config.whatsapp, whatsappTemplates, undefined, deadline('WHATSAPP_TIMEOUT_MS', config.whatsapp.timeoutMs))
    : config.env === 'development'
      ? new LogChannel(logger, 'whatsapp')
      : undefined;
  const web_push = vapid
    ? new WebPushChannel(vapid, config.notifications.webPush, deadline('WEB_PUSH_TIMEOUT_MS', config.notifications.webPush.timeoutMs))
    : undefined;
  return { push, whatsapp, web_push };
}
