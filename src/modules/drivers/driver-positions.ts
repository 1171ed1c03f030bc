/**
 * Drivers' positions (issue 26; docs/decisions.md "Driver positions"). A position is ephemeral:
 * the latest one matters. Each instance keeps the drivers it hears from in memory, answers a
 * position without a statement, and every `flushMs` writes the latest position of each driver
 * heard since the last flush in one statement, then hands what it wrote to `afterFlush` (the
 * orders' followers and dispatch). A dead instance loses at most its last unflushed positions;
 * order events never pass through here. `stop()` (graceful shutdown) flushes what is left.
 *
 * A position is a claim, bounded before it is kept (422): within MAX_DELIVERY_RADIUS_KM of the
 * box of the active stores, and no farther from the driver's last position than a car at
 * MAX_SPEED_KMH could have gone since, plus GPS_SLACK_M; and as far from the driver's anchor (a
 * position of theirs at most ANCHOR_MS old), so that the slack is granted once, not once per
 * report (twenty reports 450 m apart, sent in 0.1 s, moved a driver 9 km). The anchor is kept per
 * driver id, so it outlives a read of the driver's row again (after another instance wrote a later
 * position); one first taken from the row is the row's position when it is that recent: behind the
 * balancer, reports through k instances in turn get at most k slacks per window, not one per report.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, validationFailed } from '../../common/errors';
import { distanceMeters, MAX_DELIVERY_RADIUS_KM } from '../../common/geo';
import { Logger } from '../../common/logger';
import { activeStoresBox } from '../stores/store.service';
import type { DriverPositionsService, DriverState } from '../../common/driver-positions';
import { driverOfUser, DriverRow, Position, writePositions } from './driver.service';

export type { DriverState };

/** Faster than any car in a city, with room for a motorway stretch. */
export const MAX_SPEED_KMH = 200;
/** What a phone's fix may jump without moving (and the first fix after a long pause). */
export const GPS_SLACK_M = 500;
/** A driver's anchor, the position later ones are also measured from, is moved after this long. */
const ANCHOR_MS = 30_000;
/** The area's box is read again after this long (stores open and close rarely). */
const AREA_REFRESH_MS = 60_000;
/** A position outside the box is refused only after a look at a box at most this old. */
const AREA_RECHECK_MS = 5_000;
/** Drivers not heard from for this long are forgotten (memory holds the drivers at work). */
const FORGET_AFTER_MS = 15 * 60_000;

export interface WrittenPosition {
  driverId: number;
  isOnline: boolean;
  latitude: number;
  longitude: number;
  at: Date;
}

type Box = { minLat: number; maxLat: number; minLng: number; maxLng: number };

const stateOf = (row: DriverRow): DriverState => ({
  id: row.id,
  isOnline: Boolean(row.is_online),
  latitude: (row.latitude as number | null) ?? null,
  longitude: (row.longitude as number | null) ?? null,
  locationUpdatedAt: row.location_updated_at ? new Date(row.location_updated_at as string) : null,
  createdAt: new Date(row.created_at as string),
});

const refused = (message: string) => validationFailed({ latitude: [message], longitude: [message] });

export class DriverPositions implements DriverPositionsService {
  private readonly byUser = new Map<number, DriverState>();
  private readonly byDriver = new Map<number, DriverState>();
  private userOf = new WeakMap<DriverState, number>();
  /** By driver id (see the top): the state may be read again from the row, the anchor stays. */
  private readonly anchors = new Map<number, Position>();
  /** Drivers with a position not written yet (the state holds the latest). */
  private readonly pending = new Set<DriverState>();
  private area: { box: Box | null; readAt: number } | undefined;
  private areaReading: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private inFlight = 0;

  constructor(
    private readonly em: EntityManager,
    private readonly options: {
      flushMs: number;
      logger: Logger;
      afterFlush: (em: EntityManager, written: WrittenPosition[]) => Promise<void>;
    },
  ) {}

  start(): void {
    // A tick while a flush runs is skipped: its positions go with the next one.
    this.timer ??= setInterval(() => this.inFlight === 0 && void this.flush(), this.options.flushMs).unref();
  }

  /** Stops the timer and writes what is left (graceful shutdown). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** The caller's driver state (403 for non-drivers). */
  async driverOf(emOf: () => EntityManager, userId: number): Promise<DriverState> {
    const known = this.byUser.get(userId);
    if (known) return known;
    const row = await driverOfUser(emOf(), userId);
    if (!row) throw forbidden('You are not registered as a driver.');
    // Two first requests at once: the first one kept wins.
    return this.byUser.get(userId) ?? this.remember(Number(row.user_id), stateOf(row));
  }

  /** A driver's row changed elsewhere in this instance (availability): what is known follows it. */
  noteRow(row: DriverRow): void {
    const known = this.byDriver.get(row.id);
    if (!known) return;
    const fresh = stateOf(row);
    known.isOnline = fresh.isOnline;
    if (
      !this.pending.has(known) &&
      fresh.locationUpdatedAt &&
      (known.locationUpdatedAt?.getTime() ?? 0) <= fresh.locationUpdatedAt.getTime()
    ) {
      Object.assign(known, { latitude: fresh.latitude, longitude: fresh.longitude, locationUpdatedAt: fresh.locationUpdatedAt });
    }
  }

  /** The latest position this instance knows of a driver (written or not), if any. */
  latest(driverId: number): Position | null {
    const known = this.byDriver.get(driverId);
    if (!known || known.latitude === null || known.longitude === null || !known.locationUpdatedAt) return null;
    return { latitude: known.latitude, longitude: known.longitude, at: known.locationUpdatedAt };
  }

  /** Keeps the caller's position (422 when implausible); it is written and sent at the next flush. */
  async report(emOf: () => EntityManager, userId: number, latitude: number, longitude: number, now = new Date()): Promise<DriverState> {
    const driver = await this.check(emOf, userId, latitude, longitude, now);
    const anchor = this.anchorOf(driver, now);
    if (!anchor || now.getTime() - anchor.at.getTime() >= ANCHOR_MS) this.anchors.set(driver.id, { latitude, longitude, at: now });
    else this.anchors.set(driver.id, anchor);
    Object.assign(driver, { latitude, longitude, locationUpdatedAt: now });
    this.pending.add(driver);
    return { ...driver };
  }

  /** The caller's driver state, when the position is one they could be at (else 422); keeps nothing. */
  async check(emOf: () => EntityManager, userId: number, latitude: number, longitude: number, now = new Date()): Promise<DriverState> {
    const driver = await this.driverOf(emOf, userId);
    const position = { latitude, longitude };
    if (!(await this.inArea(emOf, position))) refuse('The position is outside the area the platform serves.');
    for (const from of [lastOf(driver), this.anchorOf(driver, now)]) {
      if (!from) continue;
      const seconds = Math.max(0, (now.getTime() - from.at.getTime()) / 1000);
      if (distanceMeters(from, position) > GPS_SLACK_M + (MAX_SPEED_KMH / 3.6) * seconds) {
        refuse(`The position is farther from the last one than a car could drive in ${Math.round(seconds)} s.`);
      }
    }
    return driver;
  }

  /** The driver's anchor; without one, their last position if it is recent enough to be one (read from the row, perhaps another instance's). */
  private anchorOf(driver: DriverState, now: Date): Position | undefined {
    const anchor = this.anchors.get(driver.id);
    if (anchor) return anchor;
    const last = lastOf(driver);
    return last && now.getTime() - last.at.getTime() < ANCHOR_MS ? last : undefined;
  }

  /** Writes the latest pending positions (one at a time: a flush in progress is waited for, then another runs). */
  flush(): Promise<void> {
    this.inFlight++;
    const run = (this.flushing ?? Promise.resolve()).then(() => this.flushOnce());
    const settled = run
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'driver positions: flush failed'))
      .finally(() => this.inFlight--);
    this.flushing = settled;
    return settled;
  }

  private async flushOnce(): Promise<void> {
    this.forgetIdle();
    if (this.pending.size === 0) return;
    const batch = [...this.pending].map((driver) => ({
      driver,
      driverId: driver.id,
      latitude: driver.latitude!,
      longitude: driver.longitude!,
      at: driver.locationUpdatedAt!,
    }));
    this.pending.clear();
    const em = this.em.fork();
    let rows: { id: number; is_online: boolean }[];
    try {
      rows = await writePositions(em, batch);
    } catch (error) {
      // Kept for the next flush (unless a newer position of the driver is pending anyway).
      for (const { driver } of batch) this.pending.add(driver);
      throw error;
    }
    const online = new Map(rows.map((r) => [r.id, r.is_online]));
    const written: WrittenPosition[] = [];
    for (const { driver, driverId, latitude, longitude, at } of batch) {
      const isOnline = online.get(driverId);
      if (isOnline === undefined) {
        // Gone, or a later position was written through another instance: read again when heard from.
        if (!this.pending.has(driver)) this.forget(driver);
        continue;
      }
      driver.isOnline = isOnline;
      written.push({ driverId, isOnline, latitude, longitude, at });
    }
    if (written.length > 0) await this.options.afterFlush(em, written);
  }

  /** Writes what is pending, then forgets every driver and the area (tests empty the tables between them). */
  async clear(): Promise<void> {
    await this.flush();
    this.byUser.clear();
    this.byDriver.clear();
    this.userOf = new WeakMap();
    this.anchors.clear();
    this.area = undefined;
  }

  private remember(userId: number, state: DriverState): DriverState {
    this.byUser.set(userId, state);
    this.byDriver.set(state.id, state);
    this.userOf.set(state, userId);
    return state;
  }

  private forget(state: DriverState): void {
    const userId = this.userOf.get(state);
    if (userId !== undefined && this.byUser.get(userId) === state) this.byUser.delete(userId);
    if (this.byDriver.get(state.id) === state) this.byDriver.delete(state.id);
  }

  private forgetIdle(): void {
    const before = Date.now() - FORGET_AFTER_MS;
    for (const state of this.byUser.values()) {
      if (!this.pending.has(state) && (state.locationUpdatedAt?.getTime() ?? 0) < before) this.forget(state);
    }
    // An anchor past its window bounds nothing the last position does not: the next report sets another.
    const expired = Date.now() - ANCHOR_MS;
    for (const [driverId, anchor] of this.anchors) if (anchor.at.getTime() < expired) this.anchors.delete(driverId);
  }

  /** Within MAX_DELIVERY_RADIUS_KM of the active stores' box (anywhere while there is no store). */
  private async inArea(emOf: () => EntityManager, p: { latitude: number; longitude: number }): Promise<boolean> {
    const age = () => (this.area ? Date.now() - this.area.readAt : Infinity);
    if (!this.area) await this.readArea(emOf());
    else if (age() > AREA_REFRESH_MS) this.readArea(this.em.fork()).catch(() => undefined); // in the background; a failure retries next time
    if (within(this.area!.box, p)) return true;
    if (age() > AREA_RECHECK_MS) await this.readArea(emOf());
    return within(this.area!.box, p);
  }

  /** One read at a time; every caller waits for the one in progress. */
  private readArea(em: EntityManager): Promise<void> {
    this.areaReading ??= activeStoresBox(em)
      .then((box) => void (this.area = { box, readAt: Date.now() }))
      .finally(() => (this.areaReading = undefined));
    return this.areaReading;
  }
}

const lastOf = (driver: DriverState): Position | undefined =>
  driver.latitude !== null && driver.longitude !== null && driver.locationUpdatedAt
    ? { latitude: driver.latitude, longitude: driver.longitude, at: driver.locationUpdatedAt }
    : undefined;

function refuse(message: string): never {
  throw refused(message);
}

function within(box: Box | null, p: { latitude: number; longitude: number }): boolean {
  if (!box) return true;
  const marginLat = MAX_DELIVERY_RADIUS_KM / 111.2;
  const widest = Math.max(Math.abs(box.minLat), Math.abs(box.maxLat)) + marginLat;
  const marginLng = MAX_DELIVERY_RADIUS_KM / (111.2 * Math.max(0.01, Math.cos((Math.min(89, widest) * Math.PI) / 180)));
  return (
    p.latitude >= box.minLat - marginLat &&
    p.latitude <= box.maxLat + marginLat &&
    p.longitude >= box.minLng - marginLng &&
    p.longitude <= box.maxLng + marginLng
  );
}
