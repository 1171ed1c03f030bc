/** Notification preferences: read with their defaults, changed field by field (PUT). */
import { invalidField } from '../../common/errors';
import { Context, viewerOf } from '../../context';
import { NotificationPreference } from './preference.entity';
import { NotificationPreferences, NotificationPreferencesInput } from './preference.types';

function view(row: NotificationPreference | null): NotificationPreferences {
  const p = row ?? new NotificationPreference();
  return {
    channels: { push: p.push, whatsapp: p.whatsapp, webPush: p.webPush },
    kinds: { orderUpdates: true, promotions: p.promotions },
    quietHours: p.quietStart && p.quietEnd ? { start: p.quietStart, end: p.quietEnd, timezone: p.quietTimezone ?? 'UTC' } : null,
  };
}

export async function getPreferences(ctx: Context): Promise<NotificationPreferences> {
  return view(await ctx.em.findOne(NotificationPreference, { user: viewerOf(ctx).userId }));
}

export async function updatePreferences(ctx: Context, input: NotificationPreferencesInput): Promise<NotificationPreferences> {
  const viewer = viewerOf(ctx);
  if (input.kinds?.orderUpdates === false)
    throw invalidField('kinds.order_updates', 'Order messages always go; they cannot be turned off.');
  if (input.quietHours && !validTimeZone(input.quietHours.timezone)) {
    throw invalidField('quiet_hours.timezone', 'The timezone must be an IANA time zone such as Africa/Casablanca.');
  }
  const row =
    (await ctx.em.findOne(NotificationPreference, { user: viewer.userId })) ??
    ctx.em.create(NotificationPreference, { user: viewer.userId });
  const { channels, kinds, quietHours } = input;
  if (channels?.push != null) row.push = channels.push;
  if (channels?.whatsapp != null) row.whatsapp = channels.whatsapp;
  if (channels?.webPush != null) row.webPush = channels.webPush;
  if (kinds?.promotions != null) row.promotions = kinds.promotions;
  if (quietHours !== undefined) {
    row.quietStart = quietHours?.start ?? null;
    row.quietEnd = quietHours?.end ?? null;
    row.quietTimezone = quietHours?.timezone ?? null;
  }
  await ctx.em.flush();
  return view(row);
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Whether `at` falls in the quiet hours (marketing-type messages wait until they end). */
export function inQuietHours(
  p: { quietStart?: string | null; quietEnd?: string | null; quietTimezone?: string | null },
  at: Date,
): boolean {
  if (!p.quietStart || !p.quietEnd) return false;
  const local = new Intl.DateTimeFormat('en-GB', {
    timeZone: p.quietTimezone ?? 'UTC',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
  return p.quietStart <= p.quietEnd ? local >= p.quietStart && local < p.quietEnd : local >= p.quietStart || local < p.quietEnd;
}
