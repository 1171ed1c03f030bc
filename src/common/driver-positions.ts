/**
 * What the request context offers of drivers' positions: the drivers module keeps them in
 * memory and writes them in batches (modules/drivers/driver-positions.ts) and the composition
 * root wires it (src/services.ts), so the context imports nothing of the modules.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface Position {
  latitude: number;
  longitude: number;
  at: Date;
}

/** What the service knows of a driver: the `Driver` fields answered. */
export interface DriverState {
  id: number;
  isOnline: boolean;
  latitude: number | null;
  longitude: number | null;
  locationUpdatedAt: Date | null;
  createdAt: Date;
}

export interface DriverPositionsService {
  /**
   * Keeps the caller's position (422 when implausible); it is written and sent at the next flush.
   * `emOf` is called only when the database must be read (a driver or the area not known yet).
   */
  report(emOf: () => EntityManager, userId: number, latitude: number, longitude: number): Promise<DriverState>;
  /** Refuses (422) a position the caller could not be at, as `report` does, keeping nothing (a position sent with going online). */
  check(emOf: () => EntityManager, userId: number, latitude: number, longitude: number): Promise<unknown>;
  /** A driver's row changed elsewhere in this instance (availability): what is known follows it. */
  noteRow(row: Record<string, unknown> & { id: number }): void;
  /** The latest position this instance knows of a driver (written or not), if any. */
  latest(driverId: number): Position | null;
  /** Forgets every driver (tests start from nothing). */
  clear(): Promise<void>;
}
