/**
 * The "Notifications" toggle of a signed-in dashboard: turned on, it asks the browser's
 * permission, registers the service worker (/web/service-worker.js), subscribes with the
 * service's VAPID key and saves the subscription; turned off (or at sign-out), it unsubscribes
 * and forgets it on the service. The page asks nothing before the person clicks.
 */
import { ApiError, gql } from './api';
import { h } from './dom';

const WORKER = '/web/service-worker.js';
// The worker's own folder: it needs no page in scope, pushes reach it all the same.
const SCOPE = '/web/';

const supported = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

async function currentSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration(SCOPE);
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/** The registration once its worker is active (`serviceWorker.ready` waits for a worker controlling this page, which never comes). */
async function activeRegistration(): Promise<ServiceWorkerRegistration> {
  const registration = await navigator.serviceWorker.register(WORKER, { scope: SCOPE });
  const worker = registration.installing ?? registration.waiting;
  if (worker && !registration.active) {
    await new Promise<void>((resolve) => worker.addEventListener('statechange', () => worker.state === 'activated' && resolve()));
  }
  return registration;
}

async function save(subscription: PushSubscription): Promise<void> {
  await gql(`mutation Save($input: WebPushSubscriptionInput!) { saveWebPushSubscription(input: $input) { message } }`, {
    input: subscription.toJSON(),
  });
}

async function turnOn(publicKey: string): Promise<void> {
  if ((await Notification.requestPermission()) !== 'granted') {
    throw new ApiError('The browser did not allow notifications: allow them for this site in its settings.');
  }
  const registration = await activeRegistration();
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: publicKey }));
  await save(subscription);
}

async function turnOff(): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  await gql(`mutation Forget($endpoint: String!) { deleteWebPushSubscription(endpoint: $endpoint) { message } }`, {
    endpoint: subscription.endpoint,
  }).catch(() => undefined); // already gone on the service: unsubscribing here is what matters
  await subscription.unsubscribe();
}

/** At sign-out: this browser must not go on hearing of the signed-out person's orders. */
export async function forgetThisBrowser(): Promise<void> {
  if (supported()) await turnOff().catch(() => undefined);
}

/** The toggle for the nav bar; it stays hidden where the browser or the service has no Web Push. */
export function notificationToggle(): HTMLElement {
  const button = h(
    'button',
    { type: 'button', class: 'secondary notifications', hidden: true, 'aria-pressed': 'false' },
    'Notifications: off',
  );
  const status = h('span', { class: 'notifications-status', role: 'status' });
  const show = (on: boolean) => {
    button.setAttribute('aria-pressed', String(on));
    button.textContent = on ? 'Notifications: on' : 'Notifications: off';
  };
  void (async () => {
    if (!supported()) return;
    const { webPushPublicKey } = await gql<{ webPushPublicKey: string | null }>(`query { webPushPublicKey }`);
    if (!webPushPublicKey) return;
    const subscription = Notification.permission === 'granted' ? await currentSubscription() : null;
    // Saved again at each sign-in: the service then knows this browser is this person's.
    if (subscription) await save(subscription);
    show(subscription !== null);
    button.hidden = false;
    button.addEventListener('click', () => {
      const on = button.getAttribute('aria-pressed') === 'true';
      button.disabled = true;
      status.textContent = '';
      (on ? turnOff() : turnOn(webPushPublicKey))
        .then(() => show(!on))
        .catch((error: unknown) => (status.textContent = error instanceof ApiError ? error.describe() : String(error)))
        .finally(() => (button.disabled = false));
    });
  })().catch(() => undefined);
  return h('span', { class: 'notifications-toggle' }, button, status);
}
