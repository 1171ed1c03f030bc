/**
 * The reference dashboard: sign-in, a store owner's live order board (/dashboard), a
 * customer's orders (/dashboard/orders) and one order's live tracking (/dashboard/orders/:id).
 * Routing is the browser's history; the service answers every /dashboard path with this page.
 */
import './style.css';
import { gql, whenSignedOut } from './api';
import { boardView } from './board';
import { h, render } from './dom';
import { myOrdersView } from './my-orders';
import { forgetThisBrowser, notificationToggle } from './notifications';
import { clearSession, currentSession } from './session';
import { signInView } from './sign-in';
import { trackingView } from './tracking';

const app = document.getElementById('app')!;
const nav = h('nav', {});
const main = h('main', {});
render(app, nav, main);

let leave: () => void = () => undefined;
/** Made once per signed-in session (it asks the service for its key and re-saves the subscription). */
let toggle: HTMLElement | undefined;

function route(): void {
  leave();
  leave = () => undefined;
  const session = currentSession();
  const path = location.pathname.replace(/\/+$/, '');
  if (!session) {
    toggle = undefined;
    render(nav, h('span', { class: 'brand' }, 'Delivery dashboard'));
    signInView(main, route);
    return;
  }
  const link = (href: string, text: string) => h('a', { href, 'data-link': true, 'aria-current': path === href ? 'page' : null }, text);
  render(
    nav,
    h('span', { class: 'brand' }, 'Delivery dashboard'),
    link('/dashboard', 'Store orders'),
    link('/dashboard/orders', 'My orders'),
    h('span', { class: 'who' }, session.name),
    (toggle ??= notificationToggle()),
    h('button', { type: 'button', class: 'secondary', onclick: () => void signOut() }, 'Sign out'),
  );
  const tracking = /^\/dashboard\/orders\/(\d+)$/.exec(path);
  if (tracking) leave = trackingView(main, Number(tracking[1]));
  else if (path === '/dashboard/orders') leave = myOrdersView(main);
  else leave = boardView(main);
}

async function signOut(): Promise<void> {
  await forgetThisBrowser();
  try {
    await gql(`mutation { logout { message } }`);
  } catch {
    // The token may already be invalid: signing out here is what matters.
  }
  clearSession();
  route();
}

function navigate(href: string): void {
  history.pushState(null, '', href);
  route();
}

document.addEventListener('click', (event) => {
  const anchor = (event.target as Element).closest?.('a[data-link]');
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(anchor.getAttribute('href')!);
});
window.addEventListener('popstate', route);
whenSignedOut(route);
route();
