/**
 * One order followed live by its customer: the timeline fills in and the driver moves on the
 * map. After a lost connection it subscribes again with afterSeq = the last seq it saw, so the
 * events missed meanwhile come first and none twice.
 */
import { ApiError, gql } from './api';
import { h, money, render, time } from './dom';
import { follow, LiveState } from './live';
import { TrackingMap } from './map';
import { FINAL, HAPPY_PATH, label, OrderUpdate } from './orders';

interface TrackedOrder {
  id: number;
  status: string;
  total: number;
  lastEventSeq: number;
  rejectionReason: string | null;
  rejectionNote: string | null;
  store: { name: string; address: string; latitude: number; longitude: number };
  deliveryAddress: { label: string; line1: string; latitude: number; longitude: number };
  driver: { name: string; latitude: number | null; longitude: number | null } | null;
  timeline: { status: string; at: string }[];
  items: { productName: string; quantity: number }[];
}

const ORDER = `query($id: Int!) { myOrder(id: $id) {
  id status total lastEventSeq rejectionReason rejectionNote
  store { name address latitude longitude }
  deliveryAddress { label line1 latitude longitude }
  driver { name latitude longitude }
  timeline { status at }
  items { productName quantity }
} }`;
const UPDATES = `subscription($id: Int!, $after: Int!) { orderUpdates(orderId: $id, afterSeq: $after) { orderId seq type status latitude longitude at } }`;

export function trackingView(root: Element, id: number): () => void {
  let stop: (() => void) | undefined;
  let closed = false;
  render(root, h('p', {}, 'Loading the order…'));
  gql<{ myOrder: TrackedOrder }>(ORDER, { id })
    .then(({ myOrder }) => {
      if (!closed) stop = show(root, myOrder);
    })
    .catch((e) =>
      render(
        root,
        h('h1', {}, `Order #${id}`),
        h('p', { class: 'error', role: 'alert' }, e instanceof ApiError ? e.describe() : String(e)),
      ),
    );
  return () => {
    closed = true;
    stop?.();
  };
}

function show(root: Element, order: TrackedOrder): () => void {
  let lastSeq = order.lastEventSeq;
  const reached = new Map(order.timeline.map((t) => [t.status, t.at]));
  const map = new TrackingMap(
    { lat: order.store.latitude, lng: order.store.longitude },
    { lat: order.deliveryAddress.latitude, lng: order.deliveryAddress.longitude },
  );
  if (order.driver?.latitude != null && order.driver.longitude != null)
    map.moveDriver({ lat: order.driver.latitude, lng: order.driver.longitude });

  const statusLine = h('p', { class: 'current', 'data-status': order.status });
  const live = h('span', { class: 'live', 'data-state': 'connecting' });
  const timeline = h('ol', { class: 'timeline' });
  const driverLine = h('p', { class: 'driver' });
  const failure = h('p', { class: 'error', role: 'alert', hidden: true });

  const draw = () => {
    statusLine.dataset.status = order.status;
    statusLine.textContent = label(order.status);
    const steps =
      FINAL.includes(order.status) && !HAPPY_PATH.includes(order.status)
        ? [...HAPPY_PATH.filter((s) => reached.has(s)), order.status]
        : HAPPY_PATH;
    timeline.replaceChildren(
      ...steps.map((status) => {
        const at = reached.get(status);
        return h(
          'li',
          { class: at ? 'reached' : 'ahead', 'data-status': status },
          h('span', {}, label(status)),
          at ? h('time', {}, time(at)) : null,
        );
      }),
    );
    driverLine.textContent = order.driver ? `Driver: ${order.driver.name}` : 'No driver yet';
  };

  const showState = (state: LiveState) => {
    live.dataset.state = state;
    live.textContent = {
      connecting: 'Connecting…',
      live: 'Live',
      reconnecting: 'Reconnecting…',
      ended: FINAL.includes(order.status) ? 'Finished' : 'Not live',
    }[state];
  };

  const apply = (update: OrderUpdate) => {
    // A position is not an event of its own: it carries the seq of the last event before it.
    if (update.type === 'driver_location') {
      if (update.seq >= lastSeq && update.latitude !== null && update.longitude !== null)
        map.moveDriver({ lat: update.latitude, lng: update.longitude });
      return;
    }
    if (update.seq <= lastSeq) return; // already seen (a replay overlapping what we had)
    lastSeq = update.seq;
    order.status = update.status;
    if (update.type === 'status') reached.set(update.status, update.at);
    if (update.type === 'driver_assigned') {
      // Who the driver is comes with the order, not with the event.
      void gql<{ myOrder: TrackedOrder }>(ORDER, { id: order.id }).then(({ myOrder }) => {
        order.driver = myOrder.driver;
        if (myOrder.driver?.latitude != null && myOrder.driver.longitude != null)
          map.moveDriver({ lat: myOrder.driver.latitude, lng: myOrder.driver.longitude });
        draw();
      });
    }
    draw();
  };

  render(
    root,
    h('div', { class: 'title' }, h('h1', {}, `Order #${order.id}`), live),
    h(
      'p',
      { class: 'hint' },
      `${order.store.name} → ${order.deliveryAddress.label}, ${order.deliveryAddress.line1} · ${money(order.total)}`,
    ),
    statusLine,
    order.rejectionReason &&
      h('p', { class: 'reason' }, `Rejected: ${order.rejectionReason}${order.rejectionNote ? ` (${order.rejectionNote})` : ''}`),
    failure,
    h(
      'div',
      { class: 'tracking' },
      h('div', {}, timeline, driverLine),
      h('figure', {}, map.element, h('figcaption', { class: 'hint' }, 'S store · H delivery address · D driver, with the way driven')),
    ),
    h('ul', { class: 'items' }, ...order.items.map((i) => h('li', {}, `${i.quantity} × ${i.productName}`))),
  );
  draw();
  if (FINAL.includes(order.status)) {
    showState('ended');
    return () => undefined;
  }
  return follow<{ orderUpdates: OrderUpdate }>({
    query: UPDATES,
    variables: () => ({ id: order.id, after: lastSeq }),
    onState: showState,
    onData: ({ orderUpdates }) => apply(orderUpdates),
    onRefused: (message) => {
      failure.textContent = message;
      failure.hidden = false;
    },
  });
}
