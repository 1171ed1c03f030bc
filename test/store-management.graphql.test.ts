/** The dashboard's GraphQL for store management: the same services, codes in extensions. */
import { useOwner } from './helpers/owners';

const t = useOwner();

describe('mutations createMenu, updateMenu, deleteMenu', () => {
  it('manage a menu of the caller’s store', async () => {
    const created = await t.server.http.graphql(
      `mutation($input: CreateMenuInput!) { createMenu(input: $input) { message menu { id name storeId isActive } } }`,
      { input: { storeId: t.owner.store.id, name: 'Breakfast' } },
      { token: t.owner.token },
    );
    expect(created.body.errors).toBeUndefined();
    const menu = created.body.data.createMenu.menu;
    expect(menu).toEqual({ id: expect.any(Number), name: 'Breakfast', storeId: t.owner.store.id, isActive: true });

    const updated = await t.server.http.graphql(
      `mutation($id: Int!, $input: UpdateMenuInput!) { updateMenu(id: $id, input: $input) { menu { name isActive } } }`,
      { id: menu.id, input: { storeId: t.owner.store.id, isActive: false } },
      { token: t.owner.token },
    );
    expect(updated.body.data.updateMenu.menu).toEqual({ name: 'Breakfast', isActive: false });

    const deleted = await t.server.http.graphql(
      `mutation($id: Int!) { deleteMenu(id: $id) { message } }`,
      { id: menu.id },
      { token: t.owner.token },
    );
    expect(deleted.body.data.deleteMenu).toEqual({ message: 'Menu deleted.' });
  });

  it('answer UNAUTHENTICATED, FORBIDDEN, NOT_FOUND and VALIDATION in extensions.code', async () => {
    const create = (input: object, token?: string) =>
      t.server.http.graphql(`mutation($input: CreateMenuInput!) { createMenu(input: $input) { menu { id } } }`, { input }, { token });
    expect((await create({ storeId: t.owner.store.id, name: 'X' })).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const other = await t.make.store();
    expect((await create({ storeId: other.id, name: 'X' }, t.owner.token)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await create({ storeId: 999999, name: 'X' }, t.owner.token)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    const invalid = await create({ storeId: t.owner.store.id, name: ' ' }, t.owner.token);
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION', fields: { name: ['name must not be blank'] } });
  });
});

describe('menu categories and offers', () => {
  it('are created, listed and read over GraphQL', async () => {
    const menu = await t.make.menu(t.owner.store);
    const category = await t.server.http.graphql(
      `mutation($input: CreateMenuCategoryInput!) { createMenuCategory(input: $input) { category { id menuId storeId name } } }`,
      { input: { name: 'Soups', menuId: menu.id } },
      { token: t.owner.token },
    );
    expect(category.body.data.createMenuCategory.category).toEqual({
      id: expect.any(Number),
      menuId: menu.id,
      storeId: t.owner.store.id,
      name: 'Soups',
    });

    const offer = await t.server.http.graphql(
      `mutation($input: CreateOfferInput!) { createOffer(input: $input) { offer { id token discount storeId } } }`,
      { input: { title: 'Soup week', discount: 12.5 } },
      { token: t.owner.token },
    );
    const created = offer.body.data.createOffer.offer;
    expect(created).toMatchObject({ discount: 12.5, storeId: t.owner.store.id });

    const read = await t.server.http.graphql(
      `query($token: String!, $storeId: Int!, $menuId: Int!) {
        offer(token: $token) { id }
        offers(storeId: $storeId) { id }
        menuCategories(menuId: $menuId) { menuCategories { name } meta { total } }
        ownedMenuCategories { name }
        menus(storeId: $storeId) { menus { name categories { name } } meta { total } }
      }`,
      { token: created.token, storeId: t.owner.store.id, menuId: menu.id },
      { token: t.owner.token },
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
