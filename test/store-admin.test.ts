/** The operator's way to create a store and assign its owner (no public endpoint does). */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { AppError } from '../src/common/errors';
import { assignOwner, createStore } from '../src/modules/stores/store-admin.service';
import { registerCustomer } from './helpers/auth';
import { useTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';

let server: TestServer;

useTestServer((s) => {
  server = s;
});

const em = () => server.db.orm.em.fork();

describe('createStore', () => {
  it('creates an active store with a unique slug, hours, a category and an owner who can then manage it', async () => {
    const owner = await registerCustomer(server);
    const store = await createStore(em(), {
      name: 'Café Crème',
      address: '1 Place des Nations Unies, Casablanca',
      latitude: 33.5951,
      longitude: -7.6187,
      category: 'Cafe',
      hours: '18:00-02:00',
      deliveryPrice: 7.5,
      owner: { phoneNumber: owner.user.phone_number },
    });
    expect(store.slug).toBe('cafe-creme');
    const twin = await createStore(em(), { name: 'Café Crème', address: 'x', latitude: 33.6, longitude: -7.6 });
    expect(twin.slug).toBe('cafe-creme-2');

    const details = await server.http.get('/api/v1/store/stores/cafe-creme');
    expect(details.body.data).toMatchObject({ category: 'Cafe', delivery_price: 7.5, delivery_radius_km: 5 });
    expect(details.body.data.opening_hours).toHaveLength(7);
    expect(details.body.data.opening_hours[0]).toEqual({ day_of_week: 0, opens_at: '18:00:00', closes_at: '02:00:00' });

    const menu = await server.http.post('/api/v1/store/menus', { store_id: store.id, name: 'Evening' }, { token: owner.token });
    expect(menu.status).toBe(201);
  });

  it('refuses bad values, naming each, and writes nothing', async () => {
    const attempt = createStore(em(), {
      name: ' ',
      address: 'x',
      latitude: 95,
      longitude: 0,
      deliveryRadiusKm: 80,
      timezone: 'Mars/Olympus',
      hours: '9-5',
    });
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({
      details: {
        fields: {
          name: expect.any(Array),
          latitude: expect.any(Array),
          deliveryRadiusKm: expect.any(Array),
          timezone: expect.any(Array),
          hours: expect.any(Array),
        },
      },
    });
    expect(await em().execute('select * from stores')).toHaveLength(0);
  });
});

describe('assignOwner', () => {
  it('gives a store to a phone, registering the user when new', async () => {
    const store = await createStore(em(), { name: 'Tacos Nord', address: 'x', latitude: 33.6, longitude: -7.6 });
    await assignOwner(em(), store.slug, { phoneNumber: '+212 6 12 34 56 78', firstName: 'Karim', lastName: 'Benali' });
    const [row] = await em().execute(`select u.phone_number, u.first_name from stores s join users u on u.id = s.owner_id where s.id = ?`, [
      store.id,
    ]);
    expect(row).toEqual({ phone_number: '+212612345678', first_name: 'Karim' });
    await expect(assignOwner(em(), 'no-such-store', { phoneNumber: '+212612345678' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('npm run store (scripts/store.ts)', () => {
  it('creates a store from the command line and prints its id and slug', async () => {
    const root = path.resolve(__dirname, '..');
    const url = server.db.orm.config.get('clientUrl');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '-r',
        '@swc-node/register',
        'scripts/store.ts',
        'create',
        '--name',
        'Pizzeria Cli',
        '--address',
        '9 Rue Test',
        '--lat',
        '33.58',
        '--lng=-7.60',
        '--owner',
        '+212612345679',
        '--category',
        'Pizza',
      ],
      { cwd: root, env: { ...process.env, DATABASE_URL: url } },
    );
    expect(stdout).toMatch(/^Created store \d+ \(pizzeria-cli\) owned by \+212612345679\./);
    const [row] = await em().execute(`select s.name, u.phone_number from stores s join users u on u.id = s.owner_id`);
    expect(row).toEqual({ name: 'Pizzeria Cli', phone_number: '+212612345679' });
  }, 60_000);
});
