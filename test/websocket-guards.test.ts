/**
 * Websocket abuse limits (issue 10, findings 2, 3 and 5): frame size before authentication,
 * sockets per user and per IP, connection rate, token life (logout, expiry, a lost revocation
 * notice) and consumers that stop reading.
 */
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { knex } from '@mikro-orm/knex';
import { passCooldown, registerCustomer } from './helpers/auth';
import { Factory } from './helpers/factories';
import { orderWorld, placeOrder } from './helpers/orders';
import { useTestServer } from './helpers/setup';
import { startTestServer, TestServer } from './helpers/server';
import { frameHeaderOnly, initSocket, rawSocket, RawSocket, until } from './helpers/ws';

let server: TestServer;
let make: Factory;
useTestServer(
  (s, f) => {
    server = s;
    make = f;
  },
  { WS_TOKEN_RECHECK_SECONDS: '1' },
);

const sockets: RawSocket[] = [];
const extra: TestServer[] = [];
afterEach(async () => {
  sockets.splice(0).forEach((s) => s.socket.terminate());
  await Promise.all(extra.splice(0).map((s) => s.close()));
});
const track = (raw: RawSocket) => {
  sockets.push(raw);
  return raw;
};
const serverWith = async (env: Record<string, string>) => {
  const s = await startTestServer(env, server.db);
  extra.push(s);
  return s;
};

const ORDER_UPDATES = (orderId: number) => ({ query: `subscription { orderUpdates(orderId: ${orderId}) { seq status } }` });

describe('frames', () => {
  it('closes a socket that announces a 1 MB frame before authenticating (1009), from the header alone', async () => {
    // Only the frame's header is sent: a server that buffered the megabyte before refusing it would wait forever.
    const codes = await Promise.all(Array.from({ length: 10 }, () => frameHeaderOnly(server.wsUrl, 1024 * 1024)));
    expect(codes).toEqual(Array(10).fill(1009));
  });

  it('still serves frames of a normal size', async () => {
    const { token } = await registerCustomer(server);
    const raw = track(await initSocket(server.wsUrl, token));
    expect(raw.messages[0]).toEqual({ type: 'connection_ack' });
  });
});

describe('sockets per user and per IP', () => {
  it('refuses the 4th socket of one user with 4429, and accepts again once one closes', async () => {
    const { token } = await registerCustomer(server);
    const first = await Promise.all([1, 2, 3].map(() => initSocket(server.wsUrl, token).then(track)));
    const fourth = track(rawSocket(server.wsUrl));
    await fourth.opened;
    fourth.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    expect(await fourth.closed).toEqual({ code: 4429, reason: 'At most 3 open connections per user.' });
    expect(first.every((r) => r.socket.readyState === r.socket.OPEN)).toBe(true);

    first[0].socket.close();
    await first[0].closed;
    // Polled: the server counts the socket out when its own side has closed.
    let again = track(rawSocket(server.wsUrl));
    for (;;) {
      await again.opened;
      again.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
      const answer = await Promise.race([again.next('connection_ack').catch(() => undefined), again.closed]);
      if (answer && 'type' in answer) break;
      again = track(rawSocket(server.wsUrl));
    }
    expect(again.messages[0]).toEqual({ type: 'connection_ack' });
    // Another user is not affected by this one's sockets.
    const other = await registerCustomer(server);
    track(await initSocket(server.wsUrl, other.token));
  });

  it("counts one user's sockets across instances: 2 on one and 1 on another make 3, the 4th is refused on either", async () => {
    const b = await serverWith({});
    const { token } = await registerCustomer(server);
    await Promise.all([server.wsUrl, server.wsUrl, b.wsUrl].map((url) => initSocket(url, token).then(track)));
    for (const url of [server.wsUrl, b.wsUrl]) {
      const fourth = track(rawSocket(url));
      await fourth.opened;
      fourth.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
      expect(await fourth.closed).toEqual({ code: 4429, reason: 'At most 3 open connections per user.' });
    }
  });

  it("a killed instance's sockets stop counting once its row expires; a live instance renews its row, not each lease", async () => {
    const { token, user } = await registerCustomer(server);
    const sql = (q: string, params: unknown[] = []) => server.db.orm.em.fork().execute(q, params);
    // Three sockets of an instance killed just after renewing its row: nobody renews or deletes them.
    await sql(`insert into socket_instances (id, expires_at) values ('dead', now() + interval '1 second')`);
    for (const id of ['dead-1', 'dead-2', 'dead-3']) {
      await sql(`insert into socket_leases (id, user_id, instance_id, expires_at) values (?, ?, 'dead', now() + interval '1 hour')`, [
        id,
        user.id,
      ]);
    }
    const refused = track(rawSocket(server.wsUrl));
    await refused.opened;
    refused.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    expect((await refused.closed).code).toBe(4429);
    await until(
      async () => (await sql(`select count(*)::int as n from socket_instances where id = 'dead' and expires_at > now()`))[0].n === 0,
      'the dead instance expired',
    );
    const live = track(await initSocket(server.wsUrl, token));
    expect(live.socket.readyState).toBe(live.socket.OPEN);
    const [lease] = await sql(`select id, instance_id, expires_at from socket_leases where user_id = ? and instance_id <> 'dead'`, [
      user.id,
    ]);
    const row = async () => (await sql(`select expires_at from socket_instances where id = ?`, [lease.instance_id]))[0];
    const first = await row();
    await until(async () => (await row()).expires_at > first.expires_at, 'the live instance renewed', 10_000);
    // The lease itself is not rewritten.
    expect((await sql(`select expires_at from socket_leases where id = ?`, [lease.id]))[0].expires_at).toEqual(lease.expires_at);
  });

  it('an instance whose row and leases were deleted (stalled past a minute) writes them again at its next renewal', async () => {
    const { token, user } = await registerCustomer(server);
    const sql = (q: string, params: unknown[] = []) => server.db.orm.em.fork().execute(q, params);
    await Promise.all([1, 2, 3].map(() => initSocket(server.wsUrl, token).then(track)));
    const [{ instance_id: instance }] = await sql(`select instance_id from socket_leases where user_id = ? limit 1`, [user.id]);
    await sql(`delete from socket_leases where instance_id = ?`, [instance]);
    await sql(`delete from socket_instances where id = ?`, [instance]);
    await until(
      async () => (await sql(`select count(*)::int as n from socket_leases where user_id = ?`, [user.id]))[0].n === 3,
      'the leases written again',
      10_000,
    );
    const fourth = track(rawSocket(server.wsUrl));
    await fourth.opened;
    fourth.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    expect((await fourth.closed).code).toBe(4429);
  });

  it('a lease left behind (its delete failed) stops counting at the next renewal; a held lease deleted by others is written again', async () => {
    const { token, user } = await registerCustomer(server);
    const sql = (q: string, params: unknown[] = []) => server.db.orm.em.fork().execute(q, params);
    const open = await Promise.all([1, 2].map(() => initSocket(server.wsUrl, token).then(track)));
    const [{ instance_id: instance }] = await sql(`select instance_id from socket_leases where user_id = ? limit 1`, [user.id]);
    // A socket that closed while the database was away: its lease row stayed, older than a renewal.
    await sql(`insert into socket_leases (id, user_id, instance_id, expires_at) values (?, ?, ?, now())`, [
      randomUUID(),
      user.id,
      instance,
    ]);
    // An expiry sweep of the previous version (or a crash) took one held socket's lease.
    const [held] = await sql(`select id from socket_leases where user_id = ? and expires_at > now() + interval '1 second' limit 1`, [
      user.id,
    ]);
    await sql(`delete from socket_leases where id = ?`, [held.id]);
    await until(
      async () =>
        (await sql(`select array_agg(id order by id) as ids from socket_leases where user_id = ?`, [user.id]))[0].ids?.length === 2 &&
        (await sql(`select count(*)::int as n from socket_leases where id = ?`, [held.id]))[0].n === 1,
      'the stray lease deleted and the held one written again',
      15_000,
    );
    // Two sockets, two leases: the third is accepted, the fourth refused.
    track(await initSocket(server.wsUrl, token));
    const fourth = track(rawSocket(server.wsUrl));
    await fourth.opened;
    fourth.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    expect((await fourth.closed).code).toBe(4429);
    expect(open.every((r) => r.socket.readyState === r.socket.OPEN)).toBe(true);
  });

  it('ten sockets of one user opening at once over two instances: exactly three are accepted', async () => {
    const b = await serverWith({});
    const { token } = await registerCustomer(server);
    const raws = Array.from({ length: 10 }, (_, i) => track(rawSocket(i % 2 ? b.wsUrl : server.wsUrl)));
    await Promise.all(raws.map((r) => r.opened));
    raws.forEach((r) => r.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
    const answers = await Promise.all(
      raws.map((r) =>
        Promise.race([
          r.next('connection_ack').then(
            () => 'ack' as const,
            () => 'closed' as const,
          ),
          r.closed.then(() => 'closed' as const),
        ]),
      ),
    );
    expect(answers.filter((a) => a === 'ack')).toHaveLength(3);
    expect(answers.filter((a) => a === 'closed')).toHaveLength(7);
  });

  it('sockets waiting for their lease through renewals are never written by a renewal: no duplicate key (4500), the cap exact', async () => {
    // Its own database: the takes wait on their user's lock through two renewals (5 s apart), past the default lock timeout.
    const s = await startTestServer({ DB_LOCK_TIMEOUT_MS: '30000', DB_STATEMENT_TIMEOUT_MS: '40000', DB_POOL_MAX: '20' });
    extra.push(s);
    const sql = (q: string, params: unknown[] = []) => s.db.orm.em.fork().execute(q, params);
    // A first lease: the instance's row exists and is renewed (a first take's own insert of it would hold the renewal back).
    const first = await registerCustomer(s);
    track(await initSocket(s.wsUrl, first.token));
    const [{ instance_id: instance }] = await sql(`select instance_id from socket_leases where user_id = ?`, [first.user.id]);
    const [many, one] = [await registerCustomer(s), await registerCustomer(s)];

    // Another session holds both users' locks (take_socket_lease's): their takes stay in flight, as
    // they do when opens queue for a saturated database.
    const own = knex({ client: 'pg', connection: s.db.orm.config.getClientUrl(), pool: { min: 1, max: 1 } });
    const trx = await own.transaction();
    await trx.raw(
      `select pg_advisory_xact_lock(hashtext('socket-leases:' || ?::int)), pg_advisory_xact_lock(hashtext('socket-leases:' || ?::int))`,
      [many.user.id, one.user.id],
    );
    let locked = true;
    const unlock = async () => {
      if (!locked) return;
      locked = false;
      await trx.rollback();
      await own.destroy();
    };
    try {
      const tokens = [...Array<string>(5).fill(many.token), one.token];
      const raws = tokens.map(() => track(rawSocket(s.wsUrl)));
      await Promise.all(raws.map((r) => r.opened));
      raws.forEach((r, i) => r.send({ type: 'connection_init', payload: { authorization: `Bearer ${tokens[i]}` } }));
      const answers = raws.map((r) =>
        r.next('connection_ack', 30_000).then(
          () => 'ack' as const,
          async () => (await r.closed).code,
        ),
      );
      await until(
        async () =>
          (await sql(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event = 'advisory'`))[0]
            .n === 6,
        'six takes waiting',
      );
      // Two renewals while they wait: the second starts after the first has reconciled the leases.
      const renewed = async () => (await sql(`select expires_at from socket_instances where id = ?`, [instance]))[0].expires_at as Date;
      for (const n of [1, 2]) {
        const before = await renewed();
        await until(async () => (await renewed()) > before, `renewal ${n}`, 10_000);
      }
      await unlock();
      const got = await Promise.all(answers);
      // Three of the five of one user (the cap), refused 4429; the other user's one accepted.
      expect(got.slice(0, 5).sort()).toEqual([4429, 4429, 'ack', 'ack', 'ack']);
      expect(got[5]).toBe('ack');
      const leases = async (userId: number) => (await sql(`select count(*)::int as n from socket_leases where user_id = ?`, [userId]))[0].n;
      expect([await leases(many.user.id), await leases(one.user.id)]).toEqual([3, 1]);
    } finally {
      await unlock();
    }
  }, 60_000);

  it('a lease of the previous version (no instance) counts until its own expiry', async () => {
    const { token, user } = await registerCustomer(server);
    const sql = (q: string, params: unknown[] = []) => server.db.orm.em.fork().execute(q, params);
    for (const id of ['old-1', 'old-2', 'old-3']) {
      await sql(`insert into socket_leases (id, user_id, expires_at) values (?, ?, now() + interval '1 second')`, [id, user.id]);
    }
    const refused = track(rawSocket(server.wsUrl));
    await refused.opened;
    refused.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    expect((await refused.closed).code).toBe(4429);
    await until(
      async () =>
        (await sql(`select count(*)::int as n from socket_leases where user_id = ? and expires_at > now()`, [user.id]))[0].n === 0,
      'the old leases expired',
    );
    const live = track(await initSocket(server.wsUrl, token));
    expect(live.socket.readyState).toBe(live.socket.OPEN);
  });

  it('refuses the upgrade with 429 past the sockets of one IP', async () => {
    const limited = await serverWith({ WS_MAX_SOCKETS_PER_IP: '2' });
    const open = [track(rawSocket(limited.wsUrl)), track(rawSocket(limited.wsUrl))];
    await Promise.all(open.map((r) => r.opened));
    expect((await track(rawSocket(limited.wsUrl)).refused).status).toBe(429);
  });

  it('rate limits new connections per IP (429 with Retry-After)', async () => {
    const limited = await serverWith({ WS_CONNECTIONS_PER_IP_PER_MINUTE: '3' });
    for (let i = 0; i < 3; i += 1) {
      const raw = track(rawSocket(limited.wsUrl));
      await raw.opened;
      raw.socket.close();
      await raw.closed;
    }
    const refused = track(rawSocket(limited.wsUrl));
    const answer = await refused.refused;
    expect(answer.status).toBe(429);
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
  });
});

describe('the token of an open socket', () => {
  it('logout closes the sockets of that token with 4401; the same user on another token keeps theirs', async () => {
    // No periodic re-check within the test: only the live notice can close the socket.
    const s = await serverWith({ WS_TOKEN_RECHECK_SECONDS: '3600' });
    const w = await orderWorld(s, make);
    const orderId = (await placeOrder(s, w)).body.data.order_id;
    const raw = track(await initSocket(s.wsUrl, w.customer.token));
    raw.send({ id: '1', type: 'subscribe', payload: ORDER_UPDATES(orderId) });
    await raw.next('next');

    await passCooldown(s);
    const second = await s.http.post('/v1/auth/customer/send-otp', { phone_number: w.customer.user.phone_number });
    expect(second.status).toBe(202);
    const code = s.whatsapp.lastCodeFor(w.customer.user.phone_number);
    const other = await s.http.post('/v1/auth/customer/verify-otp', {
      phone_number: w.customer.user.phone_number,
      verification_code: code,
    });
    const otherSocket = track(await initSocket(s.wsUrl, other.body.data.access_token));

    expect((await s.http.post('/v1/auth/customer/logout', undefined, { token: w.customer.token })).status).toBe(200);
    expect(await raw.closed).toEqual({ code: 4401, reason: 'The token has been revoked.' });
    // Nothing more reaches the closed socket; the other token's socket is open.
    expect(otherSocket.socket.readyState).toBe(otherSocket.socket.OPEN);
  });

  it('a revocation whose notice was lost is found by the periodic re-check', async () => {
    const { token } = await registerCustomer(server);
    const raw = track(await initSocket(server.wsUrl, token));
    const { jti, exp } = jwt.decode(token) as { jti: string; exp: number };
    await server.db.orm.em.fork().execute(`insert into revoked_tokens (jti, expires_at) values (?, to_timestamp(?))`, [jti, exp]);
    expect(await raw.closed).toEqual({ code: 4401, reason: 'The token has been revoked.' });
  });

  it('expiry closes the socket with 4401', async () => {
    const { user } = await registerCustomer(server);
    const token = jwt.sign({}, server.config.jwt.secret, {
      algorithm: 'HS256',
      expiresIn: 2,
      issuer: server.config.jwt.issuer,
      audience: server.config.jwt.audience,
      subject: String(user.id),
      jwtid: randomUUID(),
    });
    const raw = track(await initSocket(server.wsUrl, token));
    const closed = await raw.closed;
    expect(closed).toEqual({ code: 4401, reason: 'The token has expired.' });
  });
});

describe('a consumer that stops reading', () => {
  it('is dropped instead of being written to forever', async () => {
    const quick = await serverWith({ WS_KEEPALIVE_SECONDS: '1' });
    const { token } = await registerCustomer(quick);
    const raw = track(await initSocket(quick.wsUrl, token));
    raw.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { driverOrderUpdates { seq } }' } });
    const tcp = (raw.socket as unknown as { _socket: import('node:net').Socket })._socket;
    tcp.pause(); // reads nothing more: not the pings, not the messages
    await new Promise((r) => setTimeout(r, 3000));
    tcp.resume();
    const closed = await raw.closed;
    expect(closed.code).toBe(1006); // the server cut the connection: no closing handshake with a peer that does not read
  });
});
