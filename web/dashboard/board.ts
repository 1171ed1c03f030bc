/**
 * The store owner's live board: the orders of the caller's stores in columns by status. New
 * and changed orders arrive over storeOrderUpdates and the board reloads them (after a lost
 * connection it resumes with the last seq it received of each order: afterSeqs); the buttons
 * are the store's steps (accept, reject with a reason, preparing, ready) and show the API's
 * own error when one is refused.
 */
import { ApiError, gql } from './api';
import { h, money, render, time } from './dom';
import { follow, LiveState } from './live';
import { label, REJECTION_REASONS } from './orders';

interface BoardOrder {
  id: number;
  status: string;
  createdAt: string;
  total: number;
  rejectionReason: string | null;
  store: { id: number; name: string };
  items: { productName: string; quantity: number }[];
  deliveryAddress: { line1: string; city: string | null };
}

const ORDERS = `query { storeOrders { id status createdAt total rejectionReason store { id name } items { productName quantity } deliveryAddress { line1 city } } }`;
const UPDATES = `subscription($after: [OrderSeqInput!]) { storeOrderUpdates(afterSeqs: $after) { orderId seq status } }`;
/** The API's bound on a resume point (storeOrderUpdates' afterSeqs). */
const RESUME_ORDERS = 1000;
const ACTIONS: Record<string, { mutation: string; label: string }> = {
  accept: { mutation: `mutation($id: Int!) { acceptOrder(id: $id) { message } }`, label: 'Accept' },
  preparing: { mutation: `mutation($id: Int!) { startPreparingOrder(id: $id) { message } }`, label: 'Start preparing' },
  ready: { mutation: `mutation($id: Int!) { markOrderReady(id: $id) { message } }`, label: 'Ready for pickup' },
};
/** The owner's "sent" log of one order: which notifications went out, on which channel, and what became of them. */
const SENT = `query($id: Int!) { orderNotifications(orderId: $id) { kind recipient channel status error sentAt } }`;
interface Sent {
  kind: string;
  recipient: string;
  channel: string;
  status: string;
  error: string | null;
  sentAt: string | null;
}
const CHANNELS: Record<string, string> = { push: 'app push', whatsapp: 'WhatsApp', web_push: 'browser' };

const REJECT = `mutation($id: Int!, $reason: String!, $note: String) { rejectOrder(id: $id, input: { rejectionReason: $reason, rejectionNote: $note }) { message } }`;

const COLUMNS: { title: string; statuses: string[] }[] = [
  { title: 'New', statuses: ['pending_acceptance'] },
  { title: 'Accepted', statuses: ['accepted'] },
  { title: 'Preparing', statuses: ['preparing'] },
  { title: 'Ready', statuses: ['ready_for_pickup'] },
  { title: 'On the way', statuses: ['picked_up'] },
  { title: 'Closed', statuses: ['delivered', 'rejected', 'cancelled'] },
];

export function boardView(root: Element): () => void {
  let orders: BoardOrder[] = [];
  /** Per order: the error of its last refused step, shown on its card until the next try. */
  const errors = new Map<number, string>();
  const fresh = new Set<number>();
  /** Per order whose "sent" log is open: its entries, read when opened and again on each reload. */
  const sentLogs = new Map<number, Sent[] | string | null>();
  /** The order whose rejection form is open, kept across redraws (an update may arrive meanwhile). */
  let rejecting: { id: number; reason: string; note: string } | undefined;
  const status = h('span', { class: 'live', 'data-state': 'connecting' }, 'Connecting…');
  const failure = h('p', { class: 'error', role: 'alert', hidden: true });
  const columns = h('div', { class: 'board' });
  const notice = h('p', { class: 'hint' });

  const draw = () => {
    render(
      columns,
      ...COLUMNS.map((column) => {
        const cards = orders.filter((o) => column.statuses.includes(o.status));
        return h(
          'section',
          { class: 'column', 'aria-label': column.title },
          h('h2', {}, column.title, ' ', h('span', { class: 'count' }, cards.length)),
          ...cards.map(card),
        );
      }),
    );
  };

  const card = (order: BoardOrder) => {
    const error = errors.get(order.id);
    const actions = h('div', { class: 'actions' });
    const step = (name: keyof typeof ACTIONS) =>
      h('button', { type: 'button', onclick: () => void act(order.id, ACTIONS[name].mutation, {}) }, ACTIONS[name].label);
    if (order.status === 'pending_acceptance' && rejecting?.id === order.id) actions.append(rejectForm(rejecting));
    else if (order.status === 'pending_acceptance') {
      const open = () => {
        rejecting = { id: order.id, reason: REJECTION_REASONS[0][0], note: '' };
        draw();
        columns.querySelector<HTMLSelectElement>(`[data-order-id="${order.id}"] select`)?.focus();
      };
      actions.append(step('accept'), h('button', { type: 'button', class: 'secondary', onclick: open }, 'Reject…'));
    } else if (order.status === 'accepted') actions.append(step('preparing'));
    else if (order.status === 'preparing') actions.append(step('ready'));
    return h(
      'article',
      {
        class: `order${fresh.has(order.id) && order.status === 'pending_acceptance' ? ' fresh' : ''}`,
        'data-order-id': order.id,
        'data-status': order.status,
      },
      h(
        'header',
        {},
        h('strong', {}, `#${order.id}`),
        ' ',
        h('span', { class: 'status' }, label(order.status)),
        h('time', {}, time(order.createdAt)),
      ),
      h('p', { class: 'store' }, order.store.name),
      h('ul', { class: 'items' }, ...order.items.map((i) => h('li', {}, `${i.quantity} × ${i.productName}`))),
      h('p', { class: 'address' }, [order.deliveryAddress.line1, order.deliveryAddress.city].filter(Boolean).join(', ')),
      h('p', { class: 'total' }, money(order.total)),
      order.rejectionReason && h('p', { class: 'reason' }, `Reason: ${order.rejectionReason}`),
      error && h('p', { class: 'error', role: 'alert' }, error),
      actions,
      sentLog(order.id),
    );
  };

  /** The card's "Notifications sent" disclosure; its entries are read when it is opened. */
  const sentLog = (id: number) => {
    const entries = sentLogs.get(id);
    const open = sentLogs.has(id);
    const details = h(
      'details',
      { class: 'sent', open },
      h('summary', {}, 'Notifications sent'),
      entries === null || entries === undefined
        ? h('p', { class: 'hint' }, 'Loading…')
        : typeof entries === 'string'
          ? h('p', { class: 'error', role: 'alert' }, entries)
          : entries.length === 0
            ? h('p', { class: 'hint' }, 'None yet.')
            : h(
                'ul',
                {},
                ...entries.map((n) =>
                  h(
                    'li',
                    { 'data-kind': n.kind, 'data-channel': n.channel, 'data-status': n.status },
                    `${n.kind.replace(/_/g, ' ')} → ${n.recipient}, ${CHANNELS[n.channel] ?? n.channel}: ${n.status}`,
                    n.sentAt ? ` ${time(n.sentAt)}` : '',
                    n.error ? ` (${n.error})` : '',
                  ),
                ),
              ),
    );
    details.addEventListener('toggle', () => {
      if (details.open && !sentLogs.has(id)) void readSent(id);
      else if (!details.open) sentLogs.delete(id);
    });
    return details;
  };

  const readSent = async (id: number) => {
    if (!sentLogs.has(id)) sentLogs.set(id, null);
    try {
      const entries = (await gql<{ orderNotifications: Sent[] }>(SENT, { id })).orderNotifications;
      if (sentLogs.has(id)) sentLogs.set(id, entries);
    } catch (e) {
      if (sentLogs.has(id)) sentLogs.set(id, e instanceof ApiError ? e.describe() : String(e));
    }
    draw();
  };

  const rejectForm = (state: { id: number; reason: string; note: string }) => {
    const reason = h(
      'select',
      { name: 'reason', 'aria-label': 'Reason' },
      ...REJECTION_REASONS.map(([value, text]) => h('option', { value, selected: value === state.reason }, text)),
    );
    const note = h('input', {
      name: 'note',
      placeholder: 'Note for the customer (optional)',
      'aria-label': 'Note',
      maxlength: 500,
      value: state.note,
    });
    reason.addEventListener('change', () => (state.reason = reason.value));
    note.addEventListener('input', () => (state.note = note.value));
    const keep = () => {
      rejecting = undefined;
      draw();
    };
    const form = h(
      'form',
      { class: 'reject' },
      reason,
      note,
      h('button', { type: 'submit', class: 'danger' }, 'Reject order'),
      h('button', { type: 'button', class: 'secondary', onclick: keep }, 'Keep'),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      rejecting = undefined;
      void act(state.id, REJECT, { reason: state.reason, note: state.note.trim() || null });
    });
    return form;
  };

  const act = async (id: number, mutation: string, variables: Record<string, unknown>) => {
    errors.delete(id);
    try {
      await gql(mutation, { id, ...variables });
    } catch (e) {
      errors.set(id, e instanceof ApiError ? e.describe() : String(e));
    }
    await reload();
  };

  let loading: Promise<void> | undefined;
  let again = false;
  /** One load at a time; updates arriving meanwhile ask for one more. */
  const reload = async (): Promise<void> => {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      try {
        orders = (await gql<{ storeOrders: BoardOrder[] }>(ORDERS)).storeOrders;
        failure.hidden = true;
        // Open logs follow the order: its notifications are sent after the event that moved it.
        for (const id of sentLogs.keys()) void readSent(id);
      } catch (e) {
        failure.textContent = e instanceof ApiError ? e.describe() : String(e);
        failure.hidden = false;
      }
      draw();
    })();
    await loading;
    loading = undefined;
    if (again) {
      again = false;
      await reload();
    }
  };

  const showState = (state: LiveState) => {
    status.dataset.state = state;
    status.textContent = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', ended: 'Not live' }[state];
    // Whatever happened while the socket was being (re)opened is read again.
    if (state === 'live') void reload();
    // The stream of a user who owns no store has nothing to follow and ends at once.
    if (state === 'ended' && orders.length === 0) {
      render(
        notice,
        'You own no store, so no orders come here. Your own orders are under ',
        h('a', { href: '/dashboard/orders', 'data-link': true }, 'My orders'),
        '.',
      );
    }
  };

  render(
    root,
    h('div', { class: 'title' }, h('h1', {}, 'Store orders'), status),
    h('p', { class: 'hint' }, 'Orders of the stores you own, newest first. New orders appear here as they are placed.'),
    failure,
    notice,
    columns,
  );
  void reload();
  /** The last seq received per order: after a lost connection the stream resumes there (what was missed comes first, once). */
  const seen = new Map<number, number>();
  let subscribed = false;
  return follow<{ storeOrderUpdates: { orderId: number; seq: number; status: string } }>({
    query: UPDATES,
    variables: () => {
      const resume = subscribed;
      subscribed = true;
      return resume ? { after: [...seen].slice(-RESUME_ORDERS).map(([orderId, seq]) => ({ orderId, seq })) } : {};
    },
    onState: showState,
    onData: ({ storeOrderUpdates: update }) => {
      if (update.seq === 1) fresh.add(update.orderId);
      const last = Math.max(update.seq, seen.get(update.orderId) ?? 0);
      seen.delete(update.orderId); // the most recently changed last
      seen.set(update.orderId, last);
      void reload();
    },
    onRefused: (message) => {
      failure.textContent = message;
      failure.hidden = false;
    },
  });
}
