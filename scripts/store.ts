/**
 * Operator commands for stores (no public endpoint creates stores or assigns owners):
 *   npm run store -- create --name "Pizzeria Roma" --address "12 Rue X, Casablanca" \
 *       --lat 33.59 --lng=-7.61 [--owner +212612345678] [--category Pizza] [--radius 5] \
 *       [--delivery-price 10] [--free-delivery] [--delivery-time 30] [--timezone Africa/Casablanca] \
 *       [--hours 09:00-23:00]
 *   npm run store -- assign-owner --store <id|slug> --owner +212612345678 [--first-name A --last-name B]
 * (Negative numbers take the --opt=value form.) Uses DATABASE_URL, or the embedded database in DATA_DIR (default .data).
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { assignOwner, createStore } from '../src/modules/stores/store-admin.service';
import { runCommand } from './cli';

const options = {
  name: { type: 'string' },
  address: { type: 'string' },
  lat: { type: 'string' },
  lng: { type: 'string' },
  owner: { type: 'string' },
  'first-name': { type: 'string' },
  'last-name': { type: 'string' },
  category: { type: 'string' },
  radius: { type: 'string' },
  'delivery-price': { type: 'string' },
  'free-delivery': { type: 'boolean' },
  'delivery-time': { type: 'string' },
  timezone: { type: 'string' },
  hours: { type: 'string' },
  store: { type: 'string' },
} as const;

const { values, positionals } = parseArgs({ options, allowPositionals: true });
const command = positionals[0];
const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));
const owner = values.owner ? { phoneNumber: values.owner, firstName: values['first-name'], lastName: values['last-name'] } : undefined;

if (command === 'create') {
  runCommand(async (em) => {
    const store = await createStore(em, {
      name: values.name ?? '',
      address: values.address ?? '',
      latitude: Number(values.lat),
      longitude: Number(values.lng),
      deliveryRadiusKm: number(values.radius),
      deliveryPrice: number(values['delivery-price']),
      freeDelivery: values['free-delivery'],
      deliveryTime: number(values['delivery-time']),
      timezone: values.timezone,
      category: values.category,
      hours: values.hours,
      owner,
    });
    console.log(`Created store ${store.id} (${store.slug})${owner ? ` owned by ${owner.phoneNumber}` : ''}.`);
  });
} else if (command === 'assign-owner' && values.store && owner) {
  const storeKey = values.store;
  runCommand(async (em) => {
    const store = await assignOwner(em, storeKey, owner);
    console.log(`Store ${store.id} (${store.slug}) is now owned by ${owner.phoneNumber}.`);
  });
} else {
  console.error(
    'usage: npm run store -- create --name N --address A --lat L --lng=L [--owner PHONE] ...\n' +
      '       npm run store -- assign-owner --store ID_OR_SLUG --owner PHONE',
  );
  process.exitCode = 2;
}
