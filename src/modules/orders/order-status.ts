/**
 * The order state machine (spec §3 and docs/decisions.md). Every transition goes through
 * `TRANSITIONS`; a transition from any other state is a 422 that changes nothing.
 */
export const ORDER_STATUSES = [
  'pending_acceptance',
  'accepted',
  'preparing',
  'ready_for_pickup',
  'picked_up',
  'delivered',
  'rejected',
  'cancelled',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export type Actor = 'customer' | 'store' | 'driver' | 'system';

export interface Transition {
  from: OrderStatus[];
  to: OrderStatus;
  by: Actor;
}

export const TRANSITIONS = {
  accept: { from: ['pending_acceptance'], to: 'accepted', by: 'store' },
  reject: { from: ['pending_acceptance'], to: 'rejected', by: 'store' },
  expire: { from: ['pending_acceptance'], to: 'rejected', by: 'system' },
  cancel: { from: ['pending_acceptance'], to: 'cancelled', by: 'customer' },
  startPreparing: { from: ['accepted'], to: 'preparing', by: 'store' },
  markReady: { from: ['preparing'], to: 'ready_for_pickup', by: 'store' },
  pickUp: { from: ['ready_for_pickup'], to: 'picked_up', by: 'driver' },
  deliver: { from: ['picked_up'], to: 'delivered', by: 'driver' },
} satisfies Record<string, Transition>;

export type TransitionName = keyof typeof TRANSITIONS;

/** Orders a driver is busy with (assigned and not finished). */
export const ACTIVE_DRIVER_STATUSES: OrderStatus[] = ['accepted', 'preparing', 'ready_for_pickup', 'picked_up'];

/** Accepted orders a free driver may still be given (not yet picked up). */
export const WAITING_FOR_DRIVER_STATUSES: OrderStatus[] = ['accepted', 'preparing', 'ready_for_pickup'];

/** No event follows these. */
export const FINAL_STATUSES: OrderStatus[] = ['delivered', 'rejected', 'cancelled'];

/** Closed list for the store's rejection (spec §4.2 "allowed values not shown"). */
export const REJECTION_REASONS = ['too_busy', 'closing_soon', 'items_unavailable', 'outside_delivery_area', 'other'] as const;

/** The reason recorded when the store did not answer in time. */
export const TIMEOUT_REJECTION_REASON = 'not_accepted_in_time';
