/** Notifications over REST: preferences (the same document under the customer's and the store's paths) and an order's sent log. */
import { RestRoute } from '../../rest/route';

const PREFERENCES = `
  fragment RestPreferences on NotificationPreferences {
    channels { push whatsapp web_push: webPush }
    kinds { order_updates: orderUpdates promotions }
    quiet_hours: quietHours { start end timezone }
  }`;

export const preferenceRoutes: RestRoute[] = [
  '/api/v1/customer/notification-preferences',
  '/api/v1/store/notification-preferences',
].flatMap((path): RestRoute[] => [
  { method: 'GET', path, document: `query NotificationPreferences { notificationPreferences { ...RestPreferences } } ${PREFERENCES}` },
  {
    method: 'PUT',
    path,
    bodyVariable: 'input',
    strictBody: true,
    document: `mutation UpdateNotificationPreferences($input: NotificationPreferencesInput!) {
        updateNotificationPreferences(input: $input) { ...RestPreferences }
      } ${PREFERENCES}`,
  },
]);

/** The owner's "sent" log of an order (sent-log.service.ts). */
export const sentLogRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/store/orders/:id/notifications',
    document: `query OrderNotifications($id: Int!) {
      orderNotifications(orderId: $id) { kind recipient channel status attempts error created_at: createdAt sent_at: sentAt }
    }`,
  },
];
