/**
 * The twin of `POST /api/v1/customer/orders` (issue 26): what a hand-written handler on `pg`
 * does for a checkout, the limit of the service's statements. The token checked as the service
 * checks it (signature, issuer, audience; its revocation looked up once per
 * TOKEN_REVOCATION_RECHECK_SECONDS, as the service's cache does), the order limits counted by
 * the service's statement, then the service's own statements without a promo code, built by its
 * builders, each committed on its own: every read (orders/checkout-query.ts), the cart priced by
 * its pricing (orders/cart-pricing.ts), the order with the Idempotency-Key's claim, its items,
 * extras, first event and that event's notifications (notifications/outbox.ts); when that wrote
 * nothing from reads too old, the service's transaction (the claim with every read, the order);
 * the service's JSON by hand, each sent as a named prepared statement as the service sends them.
 * A retry with the key answers the first answer, as the service does (the bench sends one request
 * to both at once: whichever claims the key second answers the first's order). *
 * What the bench sends only: a valid cart without a promo code. Whatever else answers a bare
 * 422 or 500 (the service's full checks and messages are its business, not the twin's).
 */
import express from 'express';
import jwt, { JwtPayload } from 'jsonwebtoken';
import { Pool, PoolClient } from 'pg';
import { clientIp, compileTrust } from '../../src/common/client-ip';
import { toAmount } from '../../src/common/money';
import { FieldErrors } from '../../src/common/errors';
import type { Config } from '../../src/config';
import { enqueueCtes } from '../../src/modules/notifications/outbox';
import { cartColumns, priceCart } from '../../src/modules/orders/cart-pricing';
import {
  checkoutPlaceStatement,
  insertOrderStatement,
  orderAloneStatement,
  readInsertedOrder,
  readPlace,
  type CheckoutStore,
  type NewOrder,
} from '../../src/modules/orders/checkout-query';
import type { CheckoutInput } from '../../src/modules/orders/checkout.inputs';
import { requestHash } from '../../src/modules/orders/idempotency';
import { localTimesOf } from '../../src/modules/stores/local-time';
import { countInTurnStatement } from '../../src/rate-limits';
import { bind } from './twin';

const PLACED = 'Order placed successfully.';

interface Placed {
  orderId: number;
  status: string;
  total: number;
}

type Body = Record<string, unknown> & { items?: Record<string, unknown>[] };

/** The body as the REST adapter reads it into CheckoutInput (the same properties: the key's hash is the service's). */
function inputOf(body: Body): CheckoutInput {
  const opt = <T>(value: unknown) => value as T | undefined;
  return {
    storeId: body.store_id as number,
    addressId: body.address_id as number,
    codePromo: opt<string>(body.code_promo),
    items: (body.items ?? []).map((i) => ({
      productId: i.product_id as number,
      quantity: i.quantity as number,
      specialInstructions: opt<string>(i.special_instructions),
      options: opt<number[]>(i.options),
      supplements: opt<number[]>(i.supplements),
    })),
  };
}

/** The order a checkout without a promo code makes, as the service's `orderOf` prices it (written out again: a twin). */
function newOrder(userId: number, store: CheckoutStore, address: NewOrder['address'], items: NewOrder['items']): NewOrder {
  const subtotalCents = items.reduce((sum, item) => sum + item.totalPriceCents, 0);
  const deliveryFeeCents = store.freeDelivery ? 0 : store.deliveryPriceCents;
  return {
    userId,
    storeId: store.id,
    address,
    status: 'pending_acceptance',
    subtotalCents,
    deliveryFeeCents,
    discountCents: 0,
    totalCents: subtotalCents + deliveryFeeCents,
    promoId: null,
    promoCode: null,
    items,
  };
}

export function checkoutRoute(app: express.Express, pool: Pool, config: Config): void {
  const { jwt: jwtConfig, rateLimits } = config;
  const trustProxy = compileTrust(config.trustProxy);
  const recheckMs = jwtConfig.revocationRecheckSeconds * 1000;
  const clear = new Map<string, number>();
  const zonesMet = new Set<string>();
  // Named prepared statements, as the service sends these (a name per distinct text).
  const names = new Map<string, string>();
  const query = async <T>(client: Pool | PoolClient, statement: { sql: string; params: readonly unknown[] }) => {
    const { text, values } = bind(statement.sql, statement.params);
    let name = names.get(text);
    if (name === undefined) names.set(text, (name = `twin_checkout_${names.size + 1}`));
    return (await client.query({ name, text, values })).rows as T[];
  };

  /** The caller's user id, or null (401). */
  async function viewer(req: express.Request): Promise<number | null> {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    let claims: JwtPayload;
    try {
      claims = jwt.verify(token, jwtConfig.secret, {
        algorithms: ['HS256'],
        issuer: jwtConfig.issuer,
        audience: jwtConfig.audience,
      }) as JwtPayload;
    } catch {
      return null;
    }
    const jti = String(claims.jti);
    const checked = clear.get(jti);
    if (checked === undefined || Date.now() - checked >= recheckMs) {
      const started = Date.now();
      const revoked = await pool.query<{ count: string }>({
        name: 'twin_checkout_revoked',
        text: `select count(*) as count from revoked_tokens where jti = $1`,
        values: [jti],
      });
      if (Number(revoked.rows[0].count) > 0) return null;
      clear.set(jti, started);
    }
    return Number(claims.sub);
  }

  const answer = (res: express.Response, placed: Placed) =>
    res.status(201).json({
      success: true,
      message: PLACED,
      data: { order_id: placed.orderId, status: placed.status, total: placed.total },
    });

  app.post('/api/v1/customer/orders', express.json(), async (req, res, next) => {
    try {
      const userId = await viewer(req);
      if (userId === null) {
        res.status(401).json({ message: 'Unauthenticated.' });
        return;
      }
      const input = inputOf(req.body as Body);
      if (input.codePromo) throw new Error('the checkout twin takes no promo code');
      const ip = clientIp(req, trustProxy);
      const counted = await query<{ points: number }>(
        pool,
        countInTurnStatement([
          { key: `orders:user:${userId}`, points: rateLimits.ordersPerCustomerPerMinute, windowMs: 60_000 },
          { key: `orders:ip:${ip}`, points: rateLimits.ordersPerIpPerMinute, windowMs: 60_000 },
        ]),
      );
      if (counted.some((c, k) => c.points > (k === 0 ? rateLimits.ordersPerCustomerPerMinute : rateLimits.ordersPerIpPerMinute))) {
        res.status(429).json({ message: 'Too many orders placed. Please wait a moment.' });
        return;
      }
      const key = req.get('idempotency-key')?.trim() || null;
      const claim = key ? { key, hash: requestHash(input) } : null;
      const at = { storeId: input.storeId, addressId: input.addressId, userId };
      const cart = cartColumns(input.items);
      // As the service without a promo code: every read, then the order with its claim in one statement, on one connection.
      const one = await pool.connect();
      try {
        const read = async () =>
          readPlace((await query<never>(one, checkoutPlaceStatement(at, localTimesOf(zonesMet, new Date()), cart, null)))[0]);
        let place = await read();
        if (place.store && !place.store.zoneKnown) {
          zonesMet.add(place.store.timezone);
          place = await read();
        }
        const { store, address } = place;
        const errors: FieldErrors = {};
        const items = store ? priceCart(place.cart, input.storeId, input.items, errors) : [];
        if (!store || !store.isActive || !store.open || !address || !place.inside || Object.keys(errors).length > 0) {
          res.status(422).json({ message: 'The given data was invalid.', errors });
          return;
        }
        const made = newOrder(userId, store, address, items);
        const [row] = await query<Parameters<typeof readInsertedOrder>[0]>(
          one,
          orderAloneStatement(
            made,
            claim && { ...claim, total: toAmount(made.totalCents) },
            place.readAt,
            enqueueCtes({ order: 'o', event: 'e' }, { type: 'status', status: 'pending_acceptance', data: null }),
          ),
        );
        if (row) {
          const order = readInsertedOrder(row);
          answer(res, { orderId: order.id, status: order.status, total: toAmount(made.totalCents) });
          return;
        }
        if (claim) {
          const [used] = await query<{ request_hash: string; response: Placed | null }>(one, {
            sql: `select request_hash, response from idempotency_keys where user_id = ? and key = ?`,
            params: [userId, claim.key],
          });
          if (used) {
            if (used.request_hash === claim.hash && used.response) answer(res, used.response);
            else res.status(used.request_hash === claim.hash ? 409 : 422).json({ message: 'The twin answers no such retry.' });
            return;
          }
        }
        // Its reads were too old by then: the transaction's way, as the service's.
      } finally {
        one.release();
      }
      const client = await pool.connect();
      try {
        await client.query('begin');
        const read = async (withClaim: typeof claim) =>
          readPlace((await query<never>(client, checkoutPlaceStatement(at, localTimesOf(zonesMet, new Date()), cart, withClaim)))[0]);
        let place = await read(claim);
        if (place.store && !place.store.zoneKnown) {
          zonesMet.add(place.store.timezone);
          place = { ...(await read(null)), claimed: place.claimed };
        }
        if (claim && !place.claimed) {
          const [row] = await query<{ request_hash: string; response: Placed | null }>(client, {
            sql: `select request_hash, response from idempotency_keys where user_id = ? and key = ?`,
            params: [userId, claim.key],
          });
          await client.query('commit');
          if (row?.request_hash === claim.hash && row.response) answer(res, row.response);
          else res.status(row ? 422 : 409).json({ message: 'The twin answers no such retry.' });
          return;
        }
        const { store, address } = place;
        const errors: FieldErrors = {};
        const items = store ? priceCart(place.cart, input.storeId, input.items, errors) : [];
        if (!store || !store.isActive || !store.open || !address || !place.inside || Object.keys(errors).length > 0) {
          await client.query('rollback');
          res.status(422).json({ message: 'The given data was invalid.', errors });
          return;
        }
        const made = newOrder(userId, store, address, items);
        const [row] = await query<Parameters<typeof readInsertedOrder>[0]>(
          client,
          insertOrderStatement(
            made,
            claim ? { key: claim.key, total: toAmount(made.totalCents) } : null,
            enqueueCtes({ order: 'o', event: 'e' }, { type: 'status', status: 'pending_acceptance', data: null }),
          ),
        );
        const order = readInsertedOrder(row);
        await client.query('commit');
        answer(res, { orderId: order.id, status: order.status, total: toAmount(made.totalCents) });
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    } catch (error) {
      next(error);
    }
  });
}
