/** The signed-in customer's orders, each a link to its live tracking view. */
import { ApiError, gql } from './api';
import { h, money, render, time } from './dom';
import { label } from './orders';

interface Summary {
  id: number;
  status: string;
  total: number;
  createdAt: string;
  store: { name: string };
}

export function myOrdersView(root: Element): () => void {
  render(root, h('h1', {}, 'My orders'), h('p', {}, 'Loading…'));
  gql<{ myOrders: Summary[] }>(`query { myOrders { id status total createdAt store { name } } }`)
    .then(({ myOrders }) =>
      render(
        root,
        h('h1', {}, 'My orders'),
        myOrders.length === 0
          ? h('p', { class: 'hint' }, 'No orders yet. Orders placed from the app appear here.')
          : h(
              'ul',
              { class: 'order-list' },
              ...myOrders.map((o) =>
                h(
                  'li',
                  {},
                  h('a', { href: `/dashboard/orders/${o.id}`, 'data-link': true }, `#${o.id} · ${o.store.name}`),
                  ` ${label(o.status)} · ${money(o.total)} · ${time(o.createdAt)}`,
                ),
              ),
            ),
      ),
    )
    .catch((e) =>
      render(root, h('h1', {}, 'My orders'), h('p', { class: 'error', role: 'alert' }, e instanceof ApiError ? e.describe() : String(e))),
    );
  return () => undefined;
}
