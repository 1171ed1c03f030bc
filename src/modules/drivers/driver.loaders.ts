/** Batch loader of what a customer sees of the driver carrying their order. */
import { batchLoader } from '../../common/batch-loader';

/** The driver's contact and latest position (a plain record; GraphQL's DriverInfo has its shape). */
export interface DriverContact {
  id: number;
  name: string;
  phone: string;
  latitude: number | null;
  longitude: number | null;
}

export const driverContact = batchLoader<number, DriverContact | null>(async (em, keys) => {
  const rows = await em.execute<
    { id: number; first_name: string; last_name: string; phone_number: string; latitude: number | null; longitude: number | null }[]
  >(
    `select d.id, u.first_name, u.last_name, u.phone_number, d.latitude, d.longitude
     from drivers d join users u on u.id = d.user_id where d.id in (?)`,
    [[...keys]],
  );
  const found = new Map(
    rows.map((r) => [
      r.id,
      { id: r.id, name: `${r.first_name} ${r.last_name}`, phone: r.phone_number, latitude: r.latitude, longitude: r.longitude },
    ]),
  );
  return keys.map((k) => found.get(k) ?? null);
});
