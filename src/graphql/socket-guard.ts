/**
 * What keeps websockets from exhausting the process: sockets per IP and per user are counted,
 * connections per IP are rate limited at the upgrade, a socket's token is followed for its
 * whole life (expiry and logout close it), and a consumer that stops taking data is dropped
 * instead of letting its unsent messages pile up.
 *
 * Sockets per IP are counted per instance (each instance protects its own memory); sockets per
 * user are counted across instances (socket-leases.ts). Close codes: 4401 token no longer
 * valid, 4429 too many sockets, 4408 slow consumer, 1013 (RFC 6455 "Try Again Later") the
 * database could not check the caller or count the socket in time (websocket.ts).
 */
import { randomUUID } from 'node:crypto';
import { EntityManager } from '@mikro-orm/postgresql';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { WebSocket } from 'ws';
import { Config } from '../config';
import { Logger } from '../common/logger';
import { rateLimitRefusals } from '../common/metrics';
import type { Viewer } from '../context';
import { dropLease, leaveCount, renewInstance, RENEW_EVERY_MS, takeLease } from './socket-leases';

export const CLOSE = { unauthorized: 4401, tooMany: 4429, slowConsumer: 4408, busy: 1013 } as const;

/** Longest timer Node accepts (~24.8 days); a later expiry is re-armed when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface SocketState {
  ip: string;
  viewer?: Viewer;
  /** The socket's lease in the shared per-user count, once authenticated. */
  leaseId?: string;
  expiry?: NodeJS.Timeout;
  /** Messages handed to the socket and not yet written out. */
  pending: number;
  /** When the socket last took data (or when data started to wait). */
  progressAt: number;
}

export type UpgradeVerdict = { ok: true } | { ok: false; status: number; message: string; retryAfter?: number };

export class SocketGuard {
  private readonly sockets = new Map<WebSocket, SocketState>();
  private readonly perIp = new Map<string, number>();
  private readonly connections: RateLimiterMemory;
  private readonly timer: NodeJS.Timeout;
  private sweeping = false;
  // Intervals on the monotonic clock: a wall clock stepped back must not stop the renewals.
  private lastRecheck = performance.now();
  private renewing = false;
  private lastRenewal = performance.now();
  /** Leases being taken (their statement in flight): kept by the renewal's reconciliation, never written by it. */
  private readonly taking = new Set<string>();
  /** This instance in the shared count: its sockets' leases count while its row is renewed. */
  private readonly instanceId = randomUUID();
  /** Whether this instance has taken a lease (then it renews its row). */
  private leasing = false;
  private disposed = false;

  constructor(
    private readonly config: Config['websocket'],
    private readonly em: EntityManager,
    private readonly logger: Logger,
  ) {
    this.connections = new RateLimiterMemory({ points: config.connectionsPerIpPerMinute, duration: 60 });
    this.timer = setInterval(() => void this.sweep(), 1000).unref();
  }

  /** At the HTTP upgrade: refuses with 429 before any websocket exists. */
  async verifyUpgrade(ip: string): Promise<UpgradeVerdict> {
    if ((this.perIp.get(ip) ?? 0) >= this.config.maxSocketsPerIp) {
      rateLimitRefusals.inc({ limit: 'websocket_upgrade' });
      return { ok: false, status: 429, message: 'Too many open connections from this address.' };
    }
    try {
      await this.connections.consume(ip);
      return { ok: true };
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      rateLimitRefusals.inc({ limit: 'websocket_upgrade' });
      return {
        ok: false,
        status: 429,
        message: 'Too many connections; try again later.',
        retryAfter: Math.max(1, Math.ceil(error.msBeforeNext / 1000)),
      };
    }
  }

  /** A new socket: counted against its IP (concurrent upgrades may pass verifyUpgrade together). */
  opened(socket: WebSocket, ip: string): void {
    const state: SocketState = { ip, pending: 0, progressAt: Date.now() };
    this.sockets.set(socket, state);
    const count = (this.perIp.get(ip) ?? 0) + 1;
    this.perIp.set(ip, count);
    socket.once('close', () => this.closed(socket));
    if (count > this.config.maxSocketsPerIp) {
      rateLimitRefusals.inc({ limit: 'websocket_per_ip' });
      socket.close(CLOSE.tooMany, 'Too many open connections from this address.');
      return;
    }
    this.watchSends(socket, state);
  }

  /** After connection_init: counts the socket for its user and follows its token. False = refused (closed). */
  async authenticated(socket: WebSocket, viewer: Viewer): Promise<boolean> {
    if (!this.sockets.has(socket)) return false; // closed meanwhile
    const leaseId = randomUUID();
    this.leasing = true;
    this.taking.add(leaseId);
    let taken: boolean;
    try {
      taken = await takeLease(this.em.fork(), leaseId, viewer.userId, this.instanceId, this.config.maxSocketsPerUser);
    } finally {
      // In the same turn as the socket's state takes the lease below: a renewal sees it in one or the other.
      this.taking.delete(leaseId);
    }
    if (!taken) {
      rateLimitRefusals.inc({ limit: 'websocket_per_user' });
      socket.close(CLOSE.tooMany, `At most ${this.config.maxSocketsPerUser} open connections per user.`);
      return false;
    }
    const state = this.sockets.get(socket);
    if (!state) {
      this.release(leaseId); // closed while the lease was taken
      return false;
    }
    state.leaseId = leaseId;
    state.viewer = viewer;
    this.armExpiry(socket, state);
    return true;
  }

  /** A token was revoked (on this instance or another): its sockets close now. */
  revoked(jti: string): void {
    for (const [socket, state] of this.sockets) {
      if (state.viewer?.tokenId === jti) socket.close(CLOSE.unauthorized, 'The token has been revoked.');
    }
  }

  /** Stops; this instance's sockets stop counting now (a rolling restart's clients reconnect elsewhere), not when its row expires. */
  async dispose(): Promise<void> {
    clearInterval(this.timer);
    for (const state of this.sockets.values()) clearTimeout(state.expiry);
    this.disposed = true;
    if (this.leasing) {
      await leaveCount(this.em.fork(), this.instanceId).catch((error: unknown) =>
        this.logger.warn({ err: error }, 'leaving the socket count failed; its leases expire with its row'),
      );
    }
  }

  private closed(socket: WebSocket): void {
    const state = this.sockets.get(socket);
    if (!state) return;
    this.sockets.delete(socket);
    clearTimeout(state.expiry);
    const left = (this.perIp.get(state.ip) ?? 1) - 1;
    if (left > 0) this.perIp.set(state.ip, left);
    else this.perIp.delete(state.ip);
    // After dispose, leaveCount took every lease at once (the database may be closing).
    if (state.leaseId && !this.disposed) this.release(state.leaseId);
  }

  /** Not awaited: a lease that cannot be deleted (the database is away) goes at a later renewal. */
  private release(leaseId: string): void {
    dropLease(this.em.fork(), leaseId).catch((error: unknown) => this.logger.warn({ err: error }, 'releasing a socket lease failed'));
  }

  private armExpiry(socket: WebSocket, state: SocketState): void {
    const left = state.viewer!.expiresAt.getTime() - Date.now();
    state.expiry = setTimeout(
      () => {
        if (state.viewer!.expiresAt.getTime() > Date.now()) this.armExpiry(socket, state);
        else socket.close(CLOSE.unauthorized, 'The token has expired.');
      },
      Math.min(Math.max(0, left), MAX_TIMER_MS),
    ).unref();
  }

  /**
   * graphql-ws awaits each send's callback, so a reader that stops makes messages wait in the
   * socket and in the event queues behind it. Past the byte cap, or when nothing has been
   * taken for the send timeout, the socket is dropped (the callback still runs, so nothing hangs).
   */
  private watchSends(socket: WebSocket, state: SocketState): void {
    const send = socket.send.bind(socket) as (data: unknown, cb?: (err?: Error) => void) => void;
    (socket as unknown as { send: typeof send }).send = (data, cb) => {
      if (socket.bufferedAmount > this.config.maxBufferedBytes) {
        this.drop(socket, 'buffer');
        cb?.();
        return;
      }
      if (state.pending === 0) state.progressAt = Date.now();
      state.pending += 1;
      send(data, (err) => {
        state.pending -= 1;
        state.progressAt = Date.now();
        cb?.(err);
      });
    };
  }

  private drop(socket: WebSocket, why: 'buffer' | 'stalled'): void {
    this.logger.warn({ why, bufferedBytes: socket.bufferedAmount }, 'dropping a websocket that does not read');
    socket.close(CLOSE.slowConsumer, 'The connection does not read its messages.');
    // A peer that does not read will not answer the close either.
    setTimeout(() => socket.terminate(), 1000).unref();
  }

  private async sweep(): Promise<void> {
    const wall = Date.now();
    for (const [socket, state] of this.sockets) {
      if (state.pending > 0 && wall - state.progressAt > this.config.sendTimeoutSeconds * 1000) this.drop(socket, 'stalled');
    }
    const now = performance.now();
    if (!this.renewing && now - this.lastRenewal >= RENEW_EVERY_MS) void this.renew(now);
    if (this.sweeping || now - this.lastRecheck < this.config.tokenRecheckSeconds * 1000) return;
    this.sweeping = true;
    this.lastRecheck = now;
    try {
      await this.recheckTokens();
    } catch (error) {
      this.logger.warn({ err: error }, 're-checking websocket tokens failed');
    } finally {
      this.sweeping = false;
    }
  }

  private async renew(now: number): Promise<void> {
    this.renewing = true;
    this.lastRenewal = now;
    try {
      // An instance that never took a lease has nothing to keep.
      if (this.leasing) {
        await renewInstance(this.em.fork(), this.instanceId, () => ({
          leases: [...this.sockets.values()].flatMap((s) => (s.leaseId && s.viewer ? [{ id: s.leaseId, userId: s.viewer.userId }] : [])),
          taking: [...this.taking.keys()],
        }));
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'renewing socket leases failed');
    } finally {
      this.renewing = false;
    }
  }

  /** A revocation notice lost on the bus is caught here: open tokens against revoked_tokens. */
  private async recheckTokens(): Promise<void> {
    const ids = [...new Set([...this.sockets.values()].flatMap((s) => (s.viewer ? [s.viewer.tokenId] : [])))];
    for (let i = 0; i < ids.length; i += 1000) {
      const rows = await this.em
        .fork()
        .execute<{ jti: string }[]>(`select jti from revoked_tokens where jti in (?)`, [ids.slice(i, i + 1000)]);
      for (const row of rows) this.revoked(row.jti);
    }
  }
}
