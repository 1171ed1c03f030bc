/**
 * Writes the drafts of city-plan.ts with a few multi-row statements per chunk of stores:
 * owners, stores, hours, menus, menu categories, products, option groups and values,
 * supplements, offers. Counts what it wrote and keeps a few visible stores and products for ads.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { slugify } from '../../modules/stores/store-admin.service';
import { Cell, IdSource, insertRows } from './bulk';
import { MAIN_CATEGORIES, STORE_CATEGORIES } from './catalog-data';
import { OfferDraft, StoreDraft, TIMEZONE } from './city-plan';
import { DEMO_ACCOUNTS, DEMO_PROMO_CODES, Person } from './demo-accounts';

export interface SeedCounts {
  mainCategories: number;
  storeCategories: number;
  /** Accounts of the demo users and owners (created, or already registered with that phone). */
  users: number;
  stores: number;
  activeStores: number;
  openingHours: number;
  menus: number;
  menuCategories: number;
  products: number;
  optionGroups: number;
  optionValues: number;
  supplements: number;
  offers: number;
  ads: number;
  drivers: number;
  promoCodes: number;
}

export interface AdTarget {
  storeId: number;
  storeName: string;
  productId?: number;
  productName?: string;
}

const CDN = 'https://cdn.example.com';
const DEMO_PHONES = new Set(DEMO_ACCOUNTS.map((a) => a.phone));

export class CityWriter {
  readonly counts: SeedCounts = {
    mainCategories: 0,
    storeCategories: 0,
    users: 0,
    stores: 0,
    activeStores: 0,
    openingHours: 0,
    menus: 0,
    menuCategories: 0,
    products: 0,
    optionGroups: 0,
    optionValues: 0,
    supplements: 0,
    offers: 0,
    ads: 0,
    drivers: 0,
    promoCodes: 0,
  };
  /** What an ad may open: active stores, and their featured products in an active menu. */
  readonly adStores: AdTarget[] = [];
  readonly adProducts: AdTarget[] = [];
  readonly storesByOwner = new Map<string, { id: number; name: string; slug: string }[]>();
  private readonly ids: IdSource;
  private readonly userIds = new Map<string, number>();
  private readonly categoryIds = new Map<string, number>();
  private readonly usedSlugs = new Set<string>();

  constructor(private readonly em: EntityManager) {
    this.ids = new IdSource(em);
  }

  /** Main and store categories, by name: the ones already there are kept. */
  async categories(): Promise<void> {
    const mainIds = await this.named(
      'main_categories',
      MAIN_CATEGORIES,
      (c, id, i) => [id, c.name, c.icon, `${CDN}/main-categories/${slugify(c.name)}.jpg`, i + 1],
      ['id', 'name', 'icon', 'image', 'sort_order'],
    );
    const ids = await this.named(
      'store_categories',
      STORE_CATEGORIES,
      (c, id, i) => [id, c.name, c.icon, `${CDN}/categories/${slugify(c.name)}.jpg`, mainIds.get(c.mainCategory)!, i + 1],
      ['id', 'name', 'icon', 'image', 'main_category_id', 'sort_order'],
    );
    for (const [name, id] of ids) this.categoryIds.set(name, id);
    this.counts.mainCategories = MAIN_CATEGORIES.length;
    this.counts.storeCategories = STORE_CATEGORIES.length;
  }

  private async named<T extends { name: string }>(
    table: string,
    items: T[],
    row: (item: T, id: number, index: number) => Cell[],
    columns: string[],
  ): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    for (const r of await this.em.execute<{ id: number; name: string }[]>(`select id, name from "${table}" order by id desc`))
      ids.set(r.name, r.id);
    const missing = items.filter((item) => !ids.has(item.name));
    const fresh = await this.ids.take(table, missing.length);
    missing.forEach((item, i) => ids.set(item.name, fresh[i]));
    await insertRows(
      this.em,
      table,
      columns,
      missing.map((item) => row(item, ids.get(item.name)!, items.indexOf(item))),
    );
    return ids;
  }

  /** Creates the users not met yet; a phone already registered keeps its account. */
  async users(people: Person[]): Promise<void> {
    const fresh = new Map<string, Person>();
    for (const p of people) if (!this.userIds.has(p.phone)) fresh.set(p.phone, p);
    if (fresh.size === 0) return;
    const rows = await insertRows(
      this.em,
      'users',
      ['phone_number', 'first_name', 'last_name'],
      [...fresh.values()].map((p) => [p.phone, p.firstName, p.lastName]),
      'on conflict (phone_number) do update set phone_number = excluded.phone_number returning id, phone_number',
    );
    for (const row of rows) this.userIds.set(row.phone_number as string, row.id as number);
    this.counts.users += fresh.size;
  }

  /** Driver profiles (offline, parked at `at`) for these already written users. */
  async drivers(phones: string[], at: { lat: number; lng: number }): Promise<void> {
    const rows = await insertRows(
      this.em,
      'drivers',
      ['user_id', 'is_online', 'latitude', 'longitude'],
      phones.map((phone) => [this.userIds.get(phone)!, false, at.lat, at.lng]),
      'on conflict (user_id) do nothing returning id',
    );
    this.counts.drivers += rows.length;
  }

  async promoCodes(codes: readonly (typeof DEMO_PROMO_CODES)[number][]): Promise<void> {
    const columns = [
      'code',
      'description',
      'discount_type',
      'percent_off',
      'amount_off_cents',
      'max_discount_cents',
      'min_subtotal_cents',
      'max_uses',
      'max_uses_per_customer',
    ];
    const rows = await insertRows(
      this.em,
      'promo_codes',
      columns,
      codes.map((c) => [
        c.code,
        c.description,
        c.discountType,
        c.percentOff,
        c.amountOffCents,
        c.maxDiscountCents,
        c.minSubtotalCents,
        c.maxUses,
        c.maxUsesPerCustomer,
      ]),
      'on conflict (code) do nothing returning id',
    );
    this.counts.promoCodes += rows.length;
  }

  async stores(drafts: StoreDraft[]): Promise<void> {
    await this.users(drafts.map((d) => d.owner));
    const storeIds = await this.ids.take('stores', drafts.length);
    const storeRows: Cell[][] = [];
    const hourRows: Cell[][] = [];
    const offerRows: Cell[][] = [];
    drafts.forEach((d, i) => {
      const id = storeIds[i];
      const base = slugify(d.name) || 'store';
      const slug = this.usedSlugs.has(base) ? `${base}-${id}` : base;
      this.usedSlugs.add(slug);
      storeRows.push([
        id,
        this.userIds.get(d.owner.phone)!,
        this.categoryIds.get(d.categoryName)!,
        d.name,
        slug,
        d.description,
        `${CDN}/stores/${slug}/logo.jpg`,
        `${CDN}/stores/${slug}/cover.jpg`,
        d.address,
        d.latitude,
        d.longitude,
        d.deliveryRadiusKm,
        d.deliveryPriceCents,
        d.freeDelivery,
        d.deliveryTime,
        d.rating,
        d.ratingCount,
        d.orderCount,
        TIMEZONE,
        d.isActive,
      ]);
      for (const h of d.hours) hourRows.push([id, h.day, h.opens, h.closes]);
      for (const o of d.offers) offerRows.push(offerRow(o, id));
      if (d.isActive && this.adStores.length < 40) this.adStores.push({ storeId: id, storeName: d.name });
      if (DEMO_PHONES.has(d.owner.phone)) {
        const owned = this.storesByOwner.get(d.owner.phone) ?? [];
        owned.push({ id, name: d.name, slug });
        this.storesByOwner.set(d.owner.phone, owned);
      }
    });
    await insertRows(this.em, 'stores', STORE_COLUMNS, storeRows);
    await insertRows(this.em, 'store_opening_hours', ['store_id', 'day_of_week', 'opens_at', 'closes_at'], hourRows);
    await this.offers(offerRows);
    this.counts.stores += drafts.length;
    this.counts.activeStores += drafts.filter((d) => d.isActive).length;
    this.counts.openingHours += hourRows.length;
    await this.catalog(drafts, storeIds);
  }

  async offers(rows: Cell[][]): Promise<void> {
    await insertRows(this.em, 'offers', ['store_id', 'title', 'description', 'discount', 'token', 'image', 'starts_at', 'ends_at'], rows);
    this.counts.offers += rows.length;
  }

  private async catalog(drafts: StoreDraft[], storeIds: number[]): Promise<void> {
    const menus = drafts.flatMap((d, i) => d.menus.map((menu, sort) => ({ menu, sort, storeId: storeIds[i], store: d })));
    const menuIds = await this.ids.take('menus', menus.length);
    const categories = menus.flatMap((m, i) => m.menu.categories.map((category, sort) => ({ ...m, category, sort, menuId: menuIds[i] })));
    const categoryIds = await this.ids.take('menu_categories', categories.length);
    const products = categories.flatMap((c, i) =>
      c.category.products.map((product, sort) => ({ ...c, product, sort, categoryId: categoryIds[i] })),
    );
    const productIds = await this.ids.take('products', products.length);
    const groups = products.flatMap((p, i) => p.product.groups.map((group, sort) => ({ group, sort, productId: productIds[i] })));
    const groupIds = await this.ids.take('product_option_groups', groups.length);

    await insertRows(
      this.em,
      'menus',
      ['id', 'store_id', 'name', 'description', 'is_active', 'sort_order'],
      menus.map((m, i) => [menuIds[i], m.storeId, m.menu.name, m.menu.description, m.menu.isActive, m.sort + 1]),
    );
    await insertRows(
      this.em,
      'menu_categories',
      ['id', 'store_id', 'menu_id', 'name', 'sort_order'],
      categories.map((c, i) => [categoryIds[i], c.storeId, c.menuId, c.category.name, c.sort + 1]),
    );
    await insertRows(
      this.em,
      'products',
      [
        'id',
        'store_id',
        'menu_category_id',
        'name',
        'description',
        'price_cents',
        'image',
        'is_featured',
        'is_active',
        'sort_order',
        'order_count',
      ],
      products.map(({ product: p, ...c }, i) => [
        productIds[i],
        c.storeId,
        c.categoryId,
        p.name,
        p.description,
        p.priceCents,
        p.image,
        p.isFeatured,
        p.isActive,
        c.sort + 1,
        p.orderCount,
      ]),
    );
    await insertRows(
      this.em,
      'product_option_groups',
      ['id', 'product_id', 'name', 'is_required', 'min_select', 'max_select', 'sort_order'],
      groups.map(({ group: g, ...x }, i) => [groupIds[i], x.productId, g.name, g.required, g.min, g.max, x.sort + 1]),
    );
    const values = groups.flatMap(({ group }, i) => group.values.map(([name, cents], sort) => [groupIds[i], name, cents, sort + 1]));
    await insertRows(this.em, 'product_option_values', ['group_id', 'name', 'price_cents', 'sort_order'], values);
    const supplements = products.flatMap(({ product }, i) =>
      product.supplements.map(([name, cents], sort) => [productIds[i], name, cents, sort + 1]),
    );
    await insertRows(this.em, 'product_supplements', ['product_id', 'name', 'price_cents', 'sort_order'], supplements);

    this.counts.menus += menus.length;
    this.counts.menuCategories += categories.length;
    this.counts.products += products.length;
    this.counts.optionGroups += groups.length;
    this.counts.optionValues += values.length;
    this.counts.supplements += supplements.length;
    products.forEach((p, i) => {
      if (
        this.adProducts.length < 40 &&
        p.store.isActive &&
        p.menu.isActive &&
        p.product.isActive &&
        p.product.isFeatured &&
        p.product.priceCents >= 3000
      ) {
        this.adProducts.push({ storeId: p.storeId, storeName: p.store.name, productId: productIds[i], productName: p.product.name });
      }
    });
  }

  async ads(rows: Cell[][]): Promise<void> {
    await insertRows(
      this.em,
      'ads',
      ['title', 'type', 'image', 'redirect_type', 'store_id', 'product_id', 'sort_order', 'is_active', 'starts_at', 'ends_at'],
      rows,
    );
    this.counts.ads += rows.length;
  }
}

const STORE_COLUMNS = [
  'id',
  'owner_id',
  'category_id',
  'name',
  'slug',
  'description',
  'logo',
  'image',
  'address',
  'latitude',
  'longitude',
  'delivery_radius_km',
  'delivery_price_cents',
  'free_delivery',
  'delivery_time',
  'rating',
  'rating_count',
  'order_count',
  'timezone',
  'is_active',
];

export function offerRow(o: OfferDraft, storeId: number | null): Cell[] {
  return [storeId, o.title, o.description, o.discount, o.token, o.image, o.startsAt, o.endsAt];
}
