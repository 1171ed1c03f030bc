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
  const { channels, kinds, quietHours } = input;
  // Only the fields sent, by column; one upsert, so that PUTs at once (the first ones included) each keep theirs.
  const sent: [column: string, value: unknown][] = [];
  if (channels?.push != null) sent.push(['push', channels.push]);
  if (channels?.whatsapp != null) sent.push(['whatsapp', channels.whatsapp]);
  if (channels?.webPush != null) sent.push(['web_push', channels.webPush]);
  if (kinds?.promotions != null) sent.push(['promotions', kinds.promotions]);
  if (quietHours !== undefined) {
    sent.push(['quiet_start', quietHours?.start ?? null], ['quiet_end', quietHours?.end ?? null]);
    sent.push(['quiet_timezone', quietHours?.timezone ?? null]);
  }
  const [row] = await ctx.em.execute<Record<string, unknown>[]>(
    `insert into notification_preferences (user_id${sent.map(([c]) => `, ${c}`).join('')}) values (?${sent.map(() => ', ?').join('')})
     on conflict (user_id) do update set updated_at = now()${sent.map(([c]) => `, ${c} = excluded.${c}`).join('')}
     returning *`,
    [viewer.userId, ...sent.map(([, value]) => value)],
  );
  return view(ctx.em.map(NotificationPreference, row));
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
