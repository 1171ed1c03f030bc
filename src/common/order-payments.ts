/**
 * What the order lifecycle asks of the payments module: the payment's part of a move, inside
 * the move's transaction, and the provider calls after commit. Payments implement it
 * (payments/payment-lifecycle.ts) and the composition root wires it (src/services.ts), so the
 * orders module never imports payments (payments, which pay orders, import orders).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from './logger';

/** What the driver states at delivery: `collectCash`, they took the order's total in cash. */
export interface DeliveryChoice {
  collectCash?: boolean;
}

export interface OrderPayments<Event = unknown> {
  /** Runs in the move's transaction after its conditional UPDATE; answers the events written and the payments to settle. */
  onTransition(
    tx: EntityManager,
    orderId: number,
    move: string,
    currency: string,
    logger: Logger,
    choice?: DeliveryChoice,
  ): Promise<{ events: Event[]; settle: number[] }>;
  /** Calls the provider for the payments a committed move left to settle; never throws. */
  settle(em: EntityManager, logger: Logger, ids: number[]): Promise<void>;
}
