/** The dashboard's GraphQL for store management: the same services, codes in extensions. */
import { Factory } from './helpers/factories';
import { makeOwner, Owner } from './helpers/owners';
import { useTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';

let server: TestServer;
let make: Factory;
let owner: Owner;

useTestServer((s, f) => {
  server = s;
  make = f;
});
beforeEach(async () => {
  owner = await makeOwner(server, make);
});

describe('mutations createMenu, updateMenu, deleteMenu', () => {
  it('manage a menu of the caller’s store', async () => {
    const created = await server.http.graphql(
      `mutation($input: CreateMenuInput!) { createMenu(input: $input) { message menu { id name storeId isActive } } }`,
      { input: { storeId: owner.store.id, name: 'Breakfast' } },
      { token: owner.token },
    );
    expect(created.body.errors).toBeUndefined();
    const menu = created.body.data.createMenu.menu;
    expect(menu).toEqual({ id: expect.any(Number), name: 'Breakfast', storeId: owner.store.id, isActive: true });

    const updated = await server.http.graphql(
      `mutation($id: Int!, $input: UpdateMenuInput!) { updateMenu(id: $id, input: $input) { menu { name isActive } } }`,
      { id: menu.id, input: { storeId: owner.store.id, isActive: false } },
      { token: owner.token },
    );
    expect(updated.body.data.updateMenu.menu).toEqual({ name: 'Breakfast', isActive: false });

    const deleted = await server.http.graphql(`mutation($id: Int!) { deleteMenu(id: $id) { message } }`, { id: menu.id }, { token: owner.token });
    expect(deleted.body.data.deleteMenu).toEqual({ message: 'Menu deleted.' });
  });

  it('answer UNAUTHENTICATED, FORBIDDEN, NOT_FOUND and VALIDATION in extensions.code', async () => {
    const create = (input: object, token?: string) =>
      server.http.graphql(`mutation($input: CreateMenuInput!) { createMenu(input: $input) { menu { id } } }`, { input }, { token });
    expect((await create({ storeId: owner.store.id, name: 'X' })).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const other = await make.store();
    expect((await create({ storeId: other.id, name: 'X' }, owner.token)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await create({ storeId: 999999, name: 'X' }, owner.token)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    const invalid = await create({ storeId: owner.store.id, name: ' ' }, owner.token);
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION', fields: { name: ['name must not be blank'] } });
  });
});

describe('menu categories and offers', () => {
  it('are created, listed and read over GraphQL', async () => {
    const menu = await make.menu(owner.store);
    const category = await server.http.graphql(
      `mutation($input: CreateMenuCategoryInput!) { createMenuCategory(input: $input) { category { id menuId storeId name } } }`,
      { input: { name: 'Soups', menuId: menu.id } },
      { token: owner.token },
    );
    expect(category.body.data.createMenuCategory.category).toEqual({ id: expect.any(Number), menuId: menu.id, storeId: owner.store.id, name: 'Soups' });

    const offer = await server.http.graphql(
      `mutation($input: CreateOfferInput!) { createOffer(input: $input) { offer { id token discount storeId } } }`,
      { input: { title: 'Soup week', discount: 12.5 } },
      { token: owner.token },
    );
    const created = offer.body.data.createOffer.offer;
    expect(created).toMatchObject({ discount: 12.5, storeId: owner.store.id });

    const read = await server.http.graphql(
      `query($token: String!, $storeId: Int!, $menuId: Int!) {
        offer(token: $token) { id }
        offers(storeId: $storeId) { id }
        menuCategories(menuId: $menuId) { menuCategories { name } meta { total } }
        ownedMenuCategories { name }
        menus(storeId: $storeId) { menus { name categories { name } } meta { total } }
      }`,
      { token: created.token, storeId: owner.store.id, menuId: menu.id },
      { token: owner.token },
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data).toEqual({
      offer: { id: created.id },
      offers: [{ id: created.id }],
      menuCategories: { menuCategories: [{ name: 'Soups' }], meta: { total: 1 } },
      ownedMenuCategories: [{ name: 'Soups' }],
      menus: { menus: [{ name: menu.name, categories: [{ name: 'Soups' }] }], meta: { total: 1 } },
    });
  });
});
