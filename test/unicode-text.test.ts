/**
 * Text that is not what it shows (issue 29, item 4): invalid Unicode (a lone surrogate, raw
 * bytes that are not UTF-8) is refused with 422 naming the field by the one rule for every
 * string; names empty once invisible characters are removed, or carrying bidi overrides, are
 * refused; what the service answers is what it stored.
 */
import { uniquePhone } from './helpers/auth';
import { useOrderWorld } from './helpers/orders';

const t = useOrderWorld();

const address = (label: string, line1 = '5 Rue Tarik') => ({ label, line1, city: 'Casablanca', latitude: 33.6, longitude: -7.6 });
const invalid = (field: string, message: string) => ({ message: 'The given data was invalid.', errors: { [field]: [message] } });
/** Addresses besides the world's own one. */
const count = async () => (await t.server.db.orm.em.fork().execute(`select count(*)::int as n from user_addresses`))[0].n - 1;

/** A POST whose body is the given bytes, as sent. */
const postBytes = async (path: string, bytes: Buffer, token?: string) => {
  const response = await fetch(`${t.server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: bytes,
  });
  return { status: response.status, body: (await response.json()) as any };
};

describe('invalid Unicode', () => {
  it('a lone surrogate is refused with 422 naming the field, REST and GraphQL, and nothing is stored', async () => {
    const rest = await t.server.http.post('/api/v1/customer/addresses', address('bad\ud800x'), { token: t.w.customer.token });
    expect(rest).toMatchObject({ status: 422, body: invalid('label', 'The label field must be valid Unicode text.') });
    const gql = await t.server.http.graphql(
      'mutation($input: AddressInput!) { createAddress(input: $input) { address { id } } }',
      { input: address('Home', 'x\udc00y') },
      { token: t.w.customer.token },
    );
    expect(gql.body.errors[0].extensions).toEqual({
      code: 'VALIDATION',
      fields: { line1: ['The line1 field must be valid Unicode text.'] },
    });
    expect(await count()).toBe(0);
  });

  it('raw bytes that are not UTF-8 are refused with 422 naming the field, REST and GraphQL', async () => {
    const body = (label: Buffer) =>
      Buffer.concat([
        Buffer.from('{"label":"'),
        label,
        Buffer.from('","line1":"1 Rue","city":"Casablanca","latitude":33.6,"longitude":-7.6}'),
      ]);
    for (const bytes of [
      Buffer.from([0x62, 0xff, 0x78]),
      Buffer.from([0xc3]),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from([0xc0, 0xaf]),
    ]) {
      const res = await postBytes('/api/v1/customer/addresses', body(bytes), t.w.customer.token);
      expect([bytes, res]).toEqual([bytes, { status: 422, body: invalid('label', 'The label field must be valid Unicode text.') }]);
    }
    const gql = await postBytes(
      '/graphql',
      Buffer.concat([
        Buffer.from('{"query":"query($q: String!) { search(q: $q) { stores { id } } }","variables":{"q":"caf'),
        Buffer.from([0xe9]),
        Buffer.from('"}}'),
      ]),
    );
    expect(gql.body.errors[0].extensions).toEqual({ code: 'VALIDATION', fields: { q: ['The q field must be valid Unicode text.'] } });
    expect(await count()).toBe(0);
  });

  it('valid text (accents, emoji, a U+FFFD sent on purpose, Arabic with a direction mark) is stored and answered unchanged', async () => {
    const labels = ['Café 😀', 'ok \ufffd', 'بيت\u200f 2', 'Ｈｏｍｅ'];
    for (const label of labels) {
      const created = await t.server.http.post('/api/v1/customer/addresses', address(label), { token: t.w.customer.token });
      expect(created.status).toBe(201);
      expect(created.body.data.label).toBe(label);
    }
    const stored = await t.server.db.orm.em.fork().execute<{ label: string }[]>(`select label from user_addresses order by id`);
    expect(stored.slice(1).map((r) => r.label)).toEqual(labels);
    const listed = await t.server.http.get('/api/v1/customer/addresses', { token: t.w.customer.token });
    expect(listed.body.data.map((a: { label: string }) => a.label).sort()).toEqual([...stored.map((r) => r.label)].sort());
  });
});

describe('names', () => {
  const ZERO_WIDTH = ['\u200b\u200b', '\u200d\ufeff', ' \u2060 ', '\u3164', '\u202e\u202c'];

  it('made only of invisible characters are refused as blank (address label, menu name, profile names)', async () => {
    for (const label of ZERO_WIDTH) {
      const res = await t.server.http.post('/api/v1/customer/addresses', address(label), { token: t.w.customer.token });
      expect([label, res.status, res.body]).toEqual([label, 422, invalid('label', 'label must not be blank')]);
    }
    const menu = await t.server.http.graphql(
      'mutation($input: CreateMenuInput!) { createMenu(input: $input) { menu { id } } }',
      { input: { storeId: t.w.owner.store.id, name: '\u200b' } },
      { token: t.w.owner.token },
    );
    expect(menu.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION', fields: { name: ['name must not be blank'] } });

    const phone = uniquePhone();
    await t.server.http.post('/v1/auth/customer/send-otp', { phone_number: phone });
    const verified = await t.server.http.post('/v1/auth/customer/verify-otp', {
      phone_number: phone,
      verification_code: t.server.whatsapp.lastCodeFor(phone),
    });
    const profile = await t.server.http.post('/v1/auth/customer/complete-profile', {
      phone_number: phone,
      registration_token: verified.body.data.registration_token,
      first_name: '\u200b\u200c',
      last_name: 'Haddad\u202e',
    });
    expect(profile.status).toBe(422);
    expect(profile.body.errors).toEqual({
      first_name: ['first_name must not be blank'],
      last_name: ['last_name must not contain bidirectional control characters'],
    });
  });

  it('carrying bidi embeddings, overrides or isolates are refused', async () => {
    for (const label of ['Home\u202egnp.exe', '\u2067Home\u2069', 'a\u202ab']) {
      const res = await t.server.http.post('/api/v1/customer/addresses', address(label), { token: t.w.customer.token });
      expect([label, res.status, res.body]).toEqual([
        label,
        422,
        invalid('label', 'label must not contain bidirectional control characters'),
      ]);
    }
    expect(await count()).toBe(0);
  });
});
