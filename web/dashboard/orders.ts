/** Order vocabulary shared by the board and the tracking view. */
export const STATUS_LABELS: Record<string, string> = {
  pending_acceptance: 'New',
  accepted: 'Accepted',
  preparing: 'Preparing',
  ready_for_pickup: 'Ready for pickup',
  picked_up: 'On the way',
  delivered: 'Delivered',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
};

/** The path of an order that goes well, in order. */
export const HAPPY_PATH = ['pending_acceptance', 'accepted', 'preparing', 'ready_for_pickup', 'picked_up', 'delivered'];
export const FINAL = ['delivered', 'rejected', 'cancelled'];

export const REJECTION_REASONS: [string, string][] = [
  ['too_busy', 'Too busy'],
  ['closing_soon', 'Closing soon'],
  ['items_unavailable', 'Items unavailable'],
  ['outside_delivery_area', 'Outside the delivery area'],
  ['other', 'Other'],
];

export const label = (status: string) => STATUS_LABELS[status] ?? status;

export interface OrderUpdate {
  orderId: number;
  seq: number;
  type: 'status' | 'driver_assigned' | 'driver_location';
  status: string;
  latitude: number | null;
  longitude: number | null;
  at: string;
}
