/**
 * The VAPID keys Web Push signs with. From configuration when set; otherwise development
 * generates a pair once and keeps it in the data dir (a browser's subscription is bound to the
 * public key, so a new pair at each start would silently end every subscription), tests make
 * one per process, and production has Web Push off (docs/decisions.md, "Web Push").
 */
import fs from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';
import type { Config, VapidKeys } from '../../config';
import type { Logger } from '../../common/logger';

let testKeys: { publicKey: string; privateKey: string } | undefined;

export function vapidKeys(config: Config, logger: Logger): VapidKeys | null {
  const { keys, subject } = config.notifications.webPush;
  if (keys) return { ...keys, subject };
  if (config.env === 'production') return null;
  if (config.env === 'test') return { ...(testKeys ??= webpush.generateVAPIDKeys()), subject };
  const file = path.join(config.dataDir, 'web-push-vapid.json');
  try {
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { publicKey: string; privateKey: string };
    return { publicKey: kept.publicKey, privateKey: kept.privateKey, subject };
  } catch {
    const made = webpush.generateVAPIDKeys();
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(made, null, 2), { mode: 0o600 });
    logger.info({ file }, 'Web Push: generated development VAPID keys (set WEB_PUSH_VAPID_PUBLIC_KEY / _PRIVATE_KEY to choose your own)');
    return { ...made, subject };
  }
}
