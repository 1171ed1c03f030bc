/**
 * The drivers of the bench's driver-positions path (issue 26): `count` driver profiles in the
 * bench city (created once, phones +2126000xxxxx), online at a home point each, scattered
 * across the city, and an access token each, signed as the service signs them (the bench
 * service's secret, issuer, audience). Each request of the path is another driver (round
 * robin) reporting a point within ~30 m of their home: plausible for the service's speed bound
 * whatever the order of requests, varied for the database.
 */
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Client } from 'pg';
import { loadConfig } from '../src/config';
import { CASABLANCA } from '../src/db/seed/demo-city';
import { Random } from '../src/db/seed/random';
import { BENCH_SERVICE_ENV } from './bench-service-env';

export interface BenchDriver {
  driverId: number;
  token: string;
  home: { lat: number; lng: number };
}

/**
 * Signs access tokens as the bench service signs them (its secret, issuer and audience, read
 * from the same configuration), an hour long, each with a jti of its own: the benches' and the
 * peak's drivers, customers, followers and owners.
 */
export function benchSigner(databaseUrl: string): (userId: number) => string {
  const { jwt: jwtConfig } = loadConfig({ ...process.env, ...BENCH_SERVICE_ENV, DATABASE_URL: databaseUrl });
  return (userId) =>
    jwt.sign({}, jwtConfig.secret, {
      algorithm: 'HS256',
      expiresIn: 3600,
      issuer: jwtConfig.issuer,
      audience: jwtConfig.audience,
      subject: String(userId),
      jwtid: randomUUID(),
    });
}

export async function prepareDrivers(databaseUrl: string, count: number): Promise<BenchDriver[]> {
  const rnd = new Random(26);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const phones = Array.from({ length: count }, (_, k) => `+2126000${String(k).padStart(5, '0')}`);
    await client.query(
      `insert into users (phone_number, first_name, last_name)
       select p, 'Bench', 'Driver ' || right(p, 5) from unnest($1::text[]) p on conflict (phone_number) do nothing`,
      [phones],
    );
    await client.query(
      `insert into drivers (user_id) select u.id from users u where u.phone_number = any($1::text[]) on conflict (user_id) do nothing`,
      [phones],
    );
    const { rows } = await client.query<{ id: number; user_id: number }>(
      `select d.id, d.user_id from drivers d join users u on u.id = d.user_id where u.phone_number = any($1::text[]) order by u.phone_number`,
      [phones],
    );
    const homes = rows.map(() => ({ lat: CASABLANCA.lat + (rnd.next() - 0.5) * 0.3, lng: CASABLANCA.lng + (rnd.next() - 0.5) * 0.3 }));
    await client.query(
      `update drivers d set is_online = true, latitude = h.lat, longitude = h.lng, location_updated_at = now() - interval '1 hour'
       from unnest($1::int[], $2::float8[], $3::float8[]) as h(id, lat, lng) where d.id = h.id`,
      [rows.map((r) => r.id), homes.map((h) => h.lat), homes.map((h) => h.lng)],
    );
    const token = benchSigner(databaseUrl);
    return rows.map((r, k) => ({ driverId: r.id, home: homes[k], token: token(r.user_id) }));
  } finally {
    await client.end();
  }
}

/** Requests of the positions path: each another driver (round robin), a point near their home. */
export function positionRequests(drivers: BenchDriver[]): () => BenchRequest {
  const rnd = new Random(27);
  let k = 0;
  return () => {
    const driver = drivers[k++ % drivers.length];
    const jitter = () => (rnd.next() - 0.5) * 0.0005;
    return {
      method: 'POST',
      path: '/api/v1/driver/location',
      headers: { authorization: `Bearer ${driver.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ latitude: +(driver.home.lat + jitter()).toFixed(6), longitude: +(driver.home.lng + jitter()).toFixed(6) }),
    };
  };
}

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}
