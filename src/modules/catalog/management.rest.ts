/**
 * Spec §4.2 menus, menu categories and the store's categories over REST. "Categories" are
 * the same rows as menu categories, seen store by store and only by their owner
 * (docs/decisions.md).
 */
import { MENU, MENU_CATEGORY, PAGE_META } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

const CATEGORY_WRITE = `{ message data: category { ...RestMenuCategory } }`;

export const managementRoutes: RestRoute[] = [
  // Store categories: every operation needs the owner's token (spec §5.3).
  {
    method: 'GET',
    path: '/api/v1/store/categories',
    document: `query OwnedCategories($store_id: Int) { ownedMenuCategories(storeId: $store_id) { ...RestMenuCategory } } ${MENU_CATEGORY}`,
  },
  {
    method: 'POST',
    path: '/api/v1/store/categories',
    status: 201,
    envelope: 'message',
    document: `mutation CreateCategory($store_id: Int!, $name: String!, $menu_id: Int, $sort_order: Int) {
      createMenuCategory(input: { storeId: $store_id, name: $name, menuId: $menu_id, sortOrder: $sort_order }) ${CATEGORY_WRITE}
    } ${MENU_CATEGORY}`,
  },
  {
    method: 'GET',
    path: '/api/v1/store/categories/:id',
    document: `query OwnedCategory($id: Int!) { ownedMenuCategory(id: $id) { ...RestMenuCategory } } ${MENU_CATEGORY}`,
  },
  {
    method: 'PUT',
    path: '/api/v1/store/categories/:id',
    envelope: 'message',
    document: `mutation UpdateCategory($id: Int!, $name: String, $menu_id: Int, $sort_order: Int) {
      updateMenuCategory(id: $id, input: { name: $name, menuId: $menu_id, sortOrder: $sort_order }) ${CATEGORY_WRITE}
    } ${MENU_CATEGORY}`,
  },
  {
    method: 'DELETE',
    path: '/api/v1/store/categories/:id',
    envelope: 'message',
    document: `mutation DeleteCategory($id: Int!) { deleteMenuCategory(id: $id) { message } }`,
  },

  // Menu categories.
  {
    method: 'GET',
    path: '/api/v1/store/menu-categories',
    document: `query MenuCategories($store_id: Int, $menu_id: Int, $page: Int, $per_page: Int) {
      menuCategories(storeId: $store_id, menuId: $menu_id, page: $page, perPage: $per_page) {
        menu_categories: menuCategories { ...RestMenuCategory }
        meta { ...RestPageMeta }
      }
    } ${MENU_CATEGORY} ${PAGE_META}`,
  },
  {
    method: 'POST',
    path: '/api/v1/store/menu-categories',
    status: 201,
    envelope: 'message',
    document: `mutation CreateMenuCategory($name: String!, $menu_id: Int, $store_id: Int, $sort_order: Int) {
      createMenuCategory(input: { name: $name, menuId: $menu_id, storeId: $store_id, sortOrder: $sort_order }) ${CATEGORY_WRITE}
    } ${MENU_CATEGORY}`,
  },
  {
    method: 'GET',
    path: '/api/v1/store/menu-categories/:id',
    document: `query MenuCategory($id: Int!) { menuCategory(id: $id) { ...RestMenuCategory } } ${MENU_CATEGORY}`,
  },
  {
    method: 'PUT',
    path: '/api/v1/store/menu-categories/:id',
    envelope: 'message',
    document: `mutation UpdateMenuCategory($id: Int!, $name: String, $menu_id: Int, $sort_order: Int) {
      updateMenuCategory(id: $id, input: { name: $name, menuId: $menu_id, sortOrder: $sort_order }) ${CATEGORY_WRITE}
    } ${MENU_CATEGORY}`,
  },
  {
    method: 'DELETE',
    path: '/api/v1/store/menu-categories/:id',
    envelope: 'message',
    document: `mutation DeleteMenuCategory($id: Int!) { deleteMenuCategory(id: $id) { message } }`,
  },

  // Menus.
  {
    method: 'GET',
    path: '/api/v1/store/menus',
    document: `query Menus($store_id: Int, $page: Int, $per_page: Int) {
      menus(storeId: $store_id, page: $page, perPage: $per_page) { menus { ...RestMenu } meta { ...RestPageMeta } }
    } ${MENU} ${PAGE_META}`,
  },
  {
    method: 'POST',
    path: '/api/v1/store/menus',
    status: 201,
    envelope: 'message',
    document: `mutation CreateMenu($store_id: Int!, $name: String!, $description: String, $is_active: Boolean, $sort_order: Int) {
      createMenu(input: { storeId: $store_id, name: $name, description: $description, isActive: $is_active, sortOrder: $sort_order }) {
        message data: menu { ...RestMenu }
      }
    } ${MENU}`,
  },
  {
    method: 'GET',
    path: '/api/v1/store/menus/:id',
    document: `query Menu($id: Int!) {
      menu(id: $id) { ...RestMenu categories { ...RestMenuCategory } }
    } ${MENU} ${MENU_CATEGORY}`,
  },
  {
    method: 'PUT',
    path: '/api/v1/store/menus/:id',
    envelope: 'message',
    document: `mutation UpdateMenu($id: Int!, $store_id: Int!, $name: String, $description: String, $is_active: Boolean, $sort_order: Int) {
      updateMenu(id: $id, input: { storeId: $store_id, name: $name, description: $description, isActive: $is_active, sortOrder: $sort_order }) {
        message data: menu { ...RestMenu }
      }
    } ${MENU}`,
  },
  {
    method: 'DELETE',
    path: '/api/v1/store/menus/:id',
    envelope: 'message',
    document: `mutation DeleteMenu($id: Int!) { deleteMenu(id: $id) { message } }`,
  },
];
