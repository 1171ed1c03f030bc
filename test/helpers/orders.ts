/**
 * A small world for order tests: a store with an owner, a menu with a pizza (required size,
 * optional supplement), a customer with a saved address nearby, and an online driver.
 */
import { TestServer } from './server';
import { Factory, northOf } from './factories';
import { makeOwner, Owner } from './owners';
import { ServerHook, useTestServer, useWorld } from './setup';
import { registerCustomer, SignedIn } from './auth';
import { PromoCode } from '../../src/modules/promos/promo-code.entity';
import { createDriver } from '../../src/modules/drivers/driver-admin.service';
import { until } from './ws';

export interface OrderWorld {
  owner: Owner;
  customer: SignedIn;
  addressId: number;
  pizza: { id: number; sizes: number[]; cheese: number };
  cola: { id: number };
}

export async function orderWorld(server: TestServer, make: Factory): Promise<OrderWorld> {
  const owner = await makeOwner(server, make, { deliveryPriceCents: 1500, deliveryRadiusKm: 5 });
  const menu = await make.menu(owner.store);
  const section = await make.menuCategory(menu);
  const pizza = await make.product(section, { name: 'Margherita', priceCents: 6000 });
  const cola = await make.product(section, { name: 'Cola', priceCents: 1200 });
  const size = await make.optionGroup(pizza, { name: 'Size' }, [
    ['Medium', 0],
    ['Large', 2500],
  ]);
  const cheese = await make.supplement(pizza, 'Extra cheese', 800);
  const customer = await registerCustomer(server);
  const near = northOf({ lat: owner.store.latitude, lng: owner.store.longitude }, 1);
  const address = await server.http.post(
    '/api/v1/customer/addresses',
    { label: 'Home', line1: '5 Rue Ibnou Sina', city: 'Casablanca', latitude: near.lat, longitude: near.lng },
    { token: customer.token },
  );
  if (address.status !== 201) throw new Error(`address: ${JSON.stringify(address.body)}`);
  return {
    owner,
    customer,
    addressId: address.body.data.id,
    pizza: { id: pizza.id, sizes: size.values.map((v) => v.id), cheese: cheese.id },
    cola: { id: cola.id },
  };
}

/**
 * A file's server and a fresh order world before each test: `const t = useOrderWorld()` gives
 * `t.server`, `t.make` and `t.w` (see useWorld). `useServer` starts the server (payments: with Stripe).
 */
export function useOrderWorld(env: Record<string, string> = {}, useServer: ServerHook = useTestServer) {
  return useWorld('w', orderWorld, env, useServer);
}

/** A checkout body: one large pizza with cheese ×2 and a cola ×1 (2×(60+25+8) + 12 = 198). */
export function cart(w: OrderWorld, extra: Record<string, unknown> = {}) {
  return {
    store_id: w.owner.store.id,
    address_id: w.addressId,
    items: [
      {
        product_id: w.pizza.id,
        quantity: 2,
        options: [w.pizza.sizes[1]],
        supplements: [w.pizza.cheese],
        special_instructions: 'Well done',
      },
      { product_id: w.cola.id, quantity: 1 },
    ],
    ...extra,
  };
}

export async function placeOrder(server: TestServer, w: OrderWorld, body = cart(w), headers?: Record<string, string>) {
  return server.http.post('/api/v1/customer/orders', body, { token: w.customer.token, headers });
}

export async function promo(server: TestServer, over: Partial<PromoCode> = {}): Promise<PromoCode> {
  const em = server.db.orm.em.fork();
  const code = em.create(PromoCode, { code: 'WELCOME10', discountType: 'percentage', percentOff: 10, ...over });
  await em.flush();
  return code;
}

/** A signed-in driver, online at `position`. */
export async function onlineDriver(server: TestServer, position: { lat: number; lng: number }) {
  const signedIn = await registerCustomer(server, undefined, { first_name: 'Omar', last_name: 'Driver' });
  const driver = await createDriver(server.db.orm.em.fork(), signedIn.user.phone_number);
  await server.http.post('/api/v1/driver/online', undefined, { token: signedIn.token });
  await server.http.post('/api/v1/driver/location', { latitude: position.lat, longitude: position.lng }, { token: signedIn.token });
  // Positions reach the database in batches (docs/decisions.md "Driver positions"): dispatch sees this one once it is written.
  await until(async () => {
    const [row] = await server.db.orm.em.fork().execute(`select latitude from drivers where id = ?`, [driver.id]);
    return row?.latitude === position.lat;
  }, "the driver's position written");
  return { ...signedIn, driverId: driver.id };
}
