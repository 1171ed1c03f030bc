import { Entity, ManyToOne, PrimaryKey, PrimaryKeyProp, Ref } from '@mikro-orm/core';
import { User } from '../users/user.entity';

/**
 * Where each user's order notifications go now: one row per device with a push token and per
 * browser subscribed to Web Push (unless the user turned that channel off), and `whatsapp` /
 * `phone` when neither gives a row (unless WhatsApp is off too; only a new order uses it). Kept
 * by triggers on users, user_devices, web_push_subscriptions and notification_preferences
 * (migration outbox_targets), so that an event's statement reads one index for its recipients'
 * rows instead of their preferences, devices and browsers twice over
 * (docs/perf/2026-11-28-notifications-pg-2.md). Never written through entities.
 */
@Entity({ tableName: 'notification_targets' })
export class NotificationTarget {
  [PrimaryKeyProp]?: ['user', 'channel', 'target'];

  @ManyToOne(() => User, { ref: true, primary: true, deleteRule: 'cascade' })
  user!: Ref<User>;

  /** push, web_push or whatsapp (notification.entity.ts NotificationChannel). */
  @PrimaryKey({ length: 16 })
  channel!: string;

  /** As the outbox row's: `device:<user_devices.id>`, `webpush:<id>` or `phone`. */
  @PrimaryKey({ length: 64 })
  target!: string;
}
