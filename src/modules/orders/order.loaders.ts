/** Batch loaders of an order's lines and its timeline. */
import { batchLoader, groupBy, inKeys } from '../../common/batch-loader';
import { OrderEvent } from './order-event.entity';
import { OrderItem, OrderItemExtra } from './order.entity';

export const itemsOfOrder = batchLoader<number, OrderItem[]>(async (em, keys) =>
  groupBy(keys, await em.find(OrderItem, { order: inKeys(keys) }, { orderBy: { id: 'asc' } }), (i) => i.order.id),
);

export const extrasOfItem = batchLoader<number, OrderItemExtra[]>(async (em, keys) =>
  groupBy(keys, await em.find(OrderItemExtra, { item: inKeys(keys) }, { orderBy: { rowId: 'asc' } }), (e) => e.item.id),
);

/** The statuses the order reached, in its sequence (payment news are the payment's: payment.events). */
export const timelineEventsOfOrder = batchLoader<number, OrderEvent[]>(async (em, keys) =>
  groupBy(keys, await em.find(OrderEvent, { order: inKeys(keys), type: 'status' }, { orderBy: { seq: 'asc' } }), (e) => e.order.id),
);
