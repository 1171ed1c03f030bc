/**
 * Web Push subscriptions: a signed-in user saves their browser's subscription and removes it.
 * The endpoint is a URL the service will later POST to, so it is held to what a real push
 * service's URL looks like (https, a public host name, the default port) before it is kept;
 * the sender checks the addresses the name resolves to as well (channels' WebPushChannel).
 */
import { ECDH } from 'node:crypto';
import { isIP } from 'node:net';
import { conflict, notFound, validationFailed, FieldErrors } from '../../common/errors';
import { Context, viewerOf } from '../../context';
import { WebPushSubscription } from './web-push.entity';
import type { WebPushSubscriptionInput } from './web-push.types';

export const MAX_ENDPOINT_LENGTH = 1024;
/** A user's browsers beyond this many lose their oldest subscription: each new order is one send per subscription. */
export const MAX_SUBSCRIPTIONS_PER_USER = 10;

/** Names no public DNS answers for (RFC 6761/6762/8375 and common intranet suffixes). */
const PRIVATE_NAME = /(^|\.)(localhost|local|localdomain|internal|intranet|lan|home\.arpa|invalid|test|example)$/;

/** Why an endpoint is refused, or null. Origins in `allowed` (a local fake push service outside production) pass as they are. */
export function endpointProblem(endpoint: string, allowed: readonly string[]): string | null {
  if (endpoint.length > MAX_ENDPOINT_LENGTH) return `The endpoint may not be greater than ${MAX_ENDPOINT_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'The endpoint must be a URL.';
  }
  if (allowed.includes(url.origin)) return null;
  if (url.protocol !== 'https:') return 'The endpoint must be an https: URL.';
  if (url.username || url.password) return 'The endpoint must not carry credentials.';
  if (url.port !== '') return 'The endpoint must use the https port (no port in the URL).';
  // URL has already turned 0x7f.1, 2130706433 and the like into dotted IPv4.
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (isIP(host)) return 'The endpoint must name its host, not an IP address.';
  // An empty label (`push.localhost..`, `a..b`) is no public name: it only hides the one before it.
  if (!host.includes('.') || host.split('.').includes('') || PRIVATE_NAME.test(host)) return 'The endpoint must be on a public host.';
  return null;
}

function keyBytes(value: string): Buffer | null {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(value) ? Buffer.from(value, 'base64url') : null;
}

/** The subscription's fields that are wrong, by their REST names. */
export function subscriptionProblems(input: WebPushSubscriptionInput, allowed: readonly string[]): FieldErrors {
  const errors: FieldErrors = {};
  const endpoint = endpointProblem(input.endpoint, allowed);
  if (endpoint) errors.endpoint = [endpoint];
  const p256dh = input.keys.p256dh.length <= 100 ? keyBytes(input.keys.p256dh) : null;
  if (!p256dh || p256dh.length !== 65 || !onCurve(p256dh)) {
    errors['keys.p256dh'] = ['The keys.p256dh must be the browser’s P-256 public key (65 bytes, base64url).'];
  }
  const auth = input.keys.auth.length <= 32 ? keyBytes(input.keys.auth) : null;
  if (!auth || auth.length !== 16) errors['keys.auth'] = ['The keys.auth must be the browser’s 16-byte auth secret (base64url).'];
  return errors;
}

/** A point that is not on the curve would fail every send; refused when saved instead. */
function onCurve(point: Buffer): boolean {
  try {
    ECDH.convertKey(point, 'prime256v1', undefined, undefined, 'compressed'); // throws unless the point is on P-256
    return true;
  } catch {
    return false;
  }
}

export async function saveSubscription(ctx: Context, input: WebPushSubscriptionInput): Promise<WebPushSubscription> {
  const viewer = viewerOf(ctx);
  if (!ctx.services.webPush) throw conflict('Web Push is not configured on this server.');
  const errors = subscriptionProblems(input, ctx.services.config.notifications.webPush.allowedOrigins);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const keys = { p256dh: input.keys.p256dh.replace(/=+$/, ''), auth: input.keys.auth.replace(/=+$/, '') };
  // One row per endpoint: the browser's latest sign-in holds it (and refreshes its place among the user's).
  // Another user's endpoint moves only with its keys (the browser's PushSubscription.toJSON() carries
  // them; the auth secret never leaves the browser and this service): knowing an endpoint is not
  // enough to take someone's notifications away.
  const [row] = await ctx.em.execute<{ id: number }[]>(
    `insert into web_push_subscriptions (user_id, endpoint, p256dh, auth) values (?, ?, ?, ?)
     on conflict (endpoint) do update set user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth, created_at = now()
       where web_push_subscriptions.user_id = excluded.user_id
         or (web_push_subscriptions.p256dh = excluded.p256dh and web_push_subscriptions.auth = excluded.auth)
     returning id`,
    [viewer.userId, input.endpoint, keys.p256dh, keys.auth],
  );
  if (!row) throw conflict('This endpoint is subscribed with other keys: subscribe the browser again (a new endpoint).');
  await ctx.em.execute(
    `delete from web_push_subscriptions where user_id = ? and id not in (
       select id from web_push_subscriptions where user_id = ? order by created_at desc, id desc limit ?)`,
    [viewer.userId, viewer.userId, MAX_SUBSCRIPTIONS_PER_USER],
  );
  return ctx.em.findOneOrFail(WebPushSubscription, row.id);
}

export async function deleteSubscription(ctx: Context, endpoint: string): Promise<void> {
  const viewer = viewerOf(ctx);
  const removed = await ctx.em.execute<{ id: number }[]>(
    `delete from web_push_subscriptions where endpoint = ? and user_id = ? returning id`,
    [endpoint, viewer.userId],
  );
  if (removed.length === 0) throw notFound('WebPushSubscription', endpoint);
}
