/**
 * Operator tasks with no public endpoint (spec §1 "administrative operations: not shown"):
 * creating a store and assigning its owner. Used by `npm run store` (scripts/store.ts).
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { FieldErrors, notFound, validationFailed } from '../../common/errors';
import { MAX_DELIVERY_RADIUS_KM } from '../../common/geo';
import { toCents } from '../../common/money';
import { normalizePhone } from '../../common/phone';
import { nameProblem } from '../../common/visible-text';
import { User } from '../users/user.entity';
import { OpeningHours } from './opening-hours.entity';
import { StoreCategory } from './store-category.entity';
import { Store } from './store.entity';

export interface NewStore {
  name: string;
  address: string;
  latitude: number;
  longitude: number;
  deliveryRadiusKm?: number;
  deliveryPrice?: number;
  freeDelivery?: boolean;
  deliveryTime?: number;
  timezone?: string;
  /** A store category name (created when missing). */
  category?: string;
  /** "HH:MM-HH:MM" every day, e.g. "18:00-02:00"; default all day. */
  hours?: string;
  owner?: OwnerInput;
}

export interface OwnerInput {
  phoneNumber: string;
  firstName?: string;
  lastName?: string;
}

export async function createStore(em: EntityManager, input: NewStore): Promise<Store> {
  const errors: FieldErrors = {};
  const check = (ok: boolean, field: string, message: string) => {
    if (!ok) errors[field] = [message];
  };
  const radius = input.deliveryRadiusKm ?? 5;
  const nameWrong = input.name.trim() === '' ? 'name is required' : nameProblem('name', input.name);
  check(!nameWrong, 'name', nameWrong!);
  check(input.address.trim() !== '', 'address', 'address is required');
  check(Math.abs(input.latitude) <= 90, 'latitude', 'latitude must be between -90 and 90');
  check(Math.abs(input.longitude) <= 180, 'longitude', 'longitude must be between -180 and 180');
  check(
    radius > 0 && radius <= MAX_DELIVERY_RADIUS_KM,
    'deliveryRadiusKm',
    `deliveryRadiusKm must be more than 0 and at most ${MAX_DELIVERY_RADIUS_KM}`,
  );
  check((input.deliveryPrice ?? 0) >= 0, 'deliveryPrice', 'deliveryPrice must not be negative');
  check((input.deliveryTime ?? 30) > 0, 'deliveryTime', 'deliveryTime must be a positive number of minutes');
  const timezone = input.timezone ?? 'Africa/Casablanca';
  check(isTimeZone(timezone), 'timezone', 'timezone must be an IANA time zone such as Africa/Casablanca');
  const hours = parseHours(input.hours ?? '00:00-00:00');
  check(hours !== undefined, 'hours', 'hours must look like 09:00-23:00');
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  return em.transactional(async (tx) => {
    const store = tx.create(Store, {
      name: input.name.trim(),
      slug: await uniqueSlug(tx, input.name),
      address: input.address.trim(),
      latitude: input.latitude,
      longitude: input.longitude,
      deliveryRadiusKm: radius,
      deliveryPriceCents: toCents(input.deliveryPrice ?? 0),
      freeDelivery: input.freeDelivery ?? false,
      deliveryTime: input.deliveryTime ?? 30,
      timezone,
      category: input.category ? await categoryNamed(tx, input.category) : null,
      owner: input.owner ? await ownerFor(tx, input.owner) : null,
    });
    for (let day = 0; day < 7; day++) {
      tx.create(OpeningHours, { store, dayOfWeek: day, opensAt: hours![0], closesAt: hours![1] });
    }
    await tx.flush();
    return store;
  });
}

/** Gives a store to the user with this phone (registering them when needed). */
export async function assignOwner(em: EntityManager, storeIdOrSlug: string, owner: OwnerInput): Promise<Store> {
  return em.transactional(async (tx) => {
    const store = /^\d+$/.test(storeIdOrSlug)
      ? await tx.findOne(Store, { id: Number(storeIdOrSlug) })
      : await tx.findOne(Store, { slug: storeIdOrSlug });
    if (!store) throw notFound('Store', storeIdOrSlug);
    store.owner = (await ownerFor(tx, owner)) as never;
    await tx.flush();
    return store;
  });
}

async function ownerFor(em: EntityManager, owner: OwnerInput): Promise<User> {
  const phoneNumber = normalizePhone(owner.phoneNumber);
  if (!phoneNumber) throw validationFailed({ owner: ['owner must be a valid phone number in international format'] });
  const existing = await em.findOne(User, { phoneNumber });
  if (existing) return existing;
  return em.create(User, { phoneNumber, firstName: owner.firstName ?? 'Store', lastName: owner.lastName ?? 'Owner' });
}

async function categoryNamed(em: EntityManager, name: string): Promise<StoreCategory> {
  return (await em.findOne(StoreCategory, { name: name.trim() })) ?? em.create(StoreCategory, { name: name.trim() });
}

async function uniqueSlug(em: EntityManager, name: string): Promise<string> {
  const base = slugify(name) || 'store';
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : `${base}-${n}`;
    if ((await em.count(Store, { slug })) === 0) return slug;
  }
}

export function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 150);
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function parseHours(text: string): [string, string] | undefined {
  const match = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  return match ? [`${match[1]}:${match[2]}`, `${match[3]}:${match[4]}`] : undefined;
}
