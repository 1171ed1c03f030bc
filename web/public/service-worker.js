/**
 * The dashboard's service worker (registered by web/dashboard/notifications.ts): shows what the
 * service pushes through Web Push ({ title, body, data: { type, order_id, status, seq } }) while no
 * dashboard page is open, and opens the order when the notification is clicked. Plain script,
 * copied as it is into the build at a fixed name: a browser keeps a worker by its URL.
 */
/** What a store owner hears of: the click opens the board, not the customer's tracking page. */
const OWNER_KINDS = ['new_order', 'order_cancelled', 'payment_authorized', 'accept_reminder'];

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('push', (event) => {
  let message;
  try {
    message = event.data.json();
  } catch {
    message = { title: 'Delivery dashboard', body: event.data ? event.data.text() : '', data: {} };
  }
  const data = message.data || {};
  event.waitUntil(
    self.registration.showNotification(message.title, {
      body: message.body,
      data,
      // One notification per order and kind: a repeat (at-least-once delivery) replaces it.
      tag: `${data.type}:${data.order_id}`,
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const url = OWNER_KINDS.includes(data.type) || !data.order_id ? '/dashboard' : `/dashboard/orders/${data.order_id}`;
  event.waitUntil(self.clients.openWindow(url));
});
