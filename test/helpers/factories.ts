/**
 * Small factories for catalog rows, written through the ORM into the test database.
 * Every factory takes overrides; defaults describe an open, active store in Casablanca.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { Database } from '../../src/db/orm';
import { MainCategory } from '../../src/modules/stores/main-category.entity';
import { StoreCategory } from '../../src/modules/stores/store-category.entity';
import { Store } from '../../src/modules/stores/store.entity';
import { OpeningHours } from '../../src/modules/stores/opening-hours.entity';
import { Menu } from '../../src/modules/catalog/menu.entity';
import { MenuCategory } from '../../src/modules/catalog/menu-category.entity';
import { Product } from '../../src/modules/catalog/product.entity';
import { ProductOptionGroup, ProductOptionValue, ProductSupplement } from '../../src/modules/catalog/product-option.entity';
import { Offer } from '../../src/modules/offers/offer.entity';
import { Ad } from '../../src/modules/ads/ad.entity';

export const CASABLANCA = { lat: 33.5731, lng: -7.5898 };

/** A point `km` kilometres north of `from` (1° of latitude ≈ 111.2 km). */
export const northOf = (from: { lat: number; lng: number }, km: number) => ({ lat: from.lat + km / 111.195, lng: from.lng });

let sequence = 0;
const next = () => ++sequence;

export class Factory {
  constructor(private readonly db: Database) {}

  private async save<T extends object>(entity: T): Promise<T> {
    const em = this.db.orm.em.fork();
    await em.persistAndFlush(entity);
    return entity;
  }

  em(): EntityManager {
    return this.db.orm.em.fork();
  }

  mainCategory(over: Partial<MainCategory> = {}) {
    const n = next();
    return this.save(Object.assign(new MainCategory(), { name: `Main ${n}`, image: `https://img.test/main/${n}.png`, sortOrder: n }, over));
  }

  storeCategory(over: Partial<StoreCategory> = {}) {
    const n = next();
    return this.save(Object.assign(new StoreCategory(), { name: `Category ${n}`, sortOrder: n }, over));
  }

  /** Opening hours default to always open (00:00–00:00 every day). */
  async store(over: Partial<Store> & { hours?: [number, string, string][] } = {}): Promise<Store> {
    const n = next();
    const { hours, ...fields } = over;
    const store = Object.assign(
      new Store(),
      {
        name: `Store ${n}`,
        slug: `store-${n}`,
        address: `${n} Boulevard Anfa, Casablanca`,
        latitude: CASABLANCA.lat,
        longitude: CASABLANCA.lng,
        deliveryRadiusKm: 5,
        deliveryPriceCents: 1000,
        deliveryTime: 30,
        timezone: 'Africa/Casablanca',
        logo: `https://img.test/stores/${n}/logo.png`,
        image: `https://img.test/stores/${n}/cover.png`,
      },
      fields,
    );
    await this.save(store);
    const em = this.em();
    for (const [dayOfWeek, opensAt, closesAt] of hours ??
      [0, 1, 2, 3, 4, 5, 6].map((d): [number, string, string] => [d, '00:00', '00:00'])) {
      em.persist(em.create(OpeningHours, { store: store.id, dayOfWeek, opensAt, closesAt }));
    }
    await em.flush();
    return store;
  }

  menu(store: Store, over: Partial<Menu> = {}) {
    return this.save(Object.assign(new Menu(), { store: this.em().getReference(Store, store.id), name: `Menu ${next()}` }, over));
  }

  menuCategory(menu: Menu, over: Partial<MenuCategory> = {}) {
    const em = this.em();
    return this.save(
      Object.assign(
        new MenuCategory(),
        { store: em.getReference(Store, menu.store.id), menu: em.getReference(Menu, menu.id), name: `Section ${next()}` },
        over,
      ),
    );
  }

  product(category: MenuCategory, over: Partial<Product> = {}) {
    const em = this.em();
    const n = next();
    return this.save(
      Object.assign(
        new Product(),
        {
          store: em.getReference(Store, category.store.id),
          menuCategory: em.getReference(MenuCategory, category.id),
          name: `Product ${n}`,
          priceCents: 4500,
          image: `https://img.test/products/${n}.png`,
        },
        over,
      ),
    );
  }

  /** A store with one active menu, one section and `count` products. */
  async storeWithProducts(count: number, over: Partial<Store> = {}, product: Partial<Product> = {}) {
    const store = await this.store(over);
    const menu = await this.menu(store);
    const category = await this.menuCategory(menu);
    const products: Product[] = [];
    for (let i = 0; i < count; i++) products.push(await this.product(category, product));
    return { store, menu, category, products };
  }

  async optionGroup(
    product: Product,
    over: Partial<ProductOptionGroup> = {},
    values: [string, number][] = [
      ['Small', 0],
      ['Large', 1500],
    ],
  ) {
    const em = this.em();
    const group = em.create(ProductOptionGroup, {
      product: product.id,
      name: 'Size',
      isRequired: true,
      minSelect: 1,
      maxSelect: 1,
      ...over,
    });
    em.persist(group);
    const created = values.map(([name, priceCents], i) =>
      Object.assign(new ProductOptionValue(), { group, name, priceCents, sortOrder: i }),
    );
    em.persist(created);
    await em.flush();
    return { group, values: created };
  }

  async supplement(product: Product, name = 'Extra cheese', priceCents = 500) {
    const em = this.em();
    const supplement = Object.assign(new ProductSupplement(), { product: em.getReference(Product, product.id), name, priceCents });
    await em.persistAndFlush(supplement);
    return supplement;
  }

  offer(over: Partial<Offer> & { storeId?: number | null } = {}) {
    const { storeId, ...fields } = over;
    const n = next();
    return this.save(
      Object.assign(
        new Offer(),
        { title: `Offer ${n}`, discount: 10, token: `offer-token-${n}`, store: storeId ? this.em().getReference(Store, storeId) : null },
        fields,
      ),
    );
  }

  ad(over: Partial<Ad> = {}) {
    const n = next();
    return this.save(Object.assign(new Ad(), { title: `Ad ${n}`, image: `https://img.test/ads/${n}.png` }, over));
  }
}
