/**
 * The demo city as plain data, store by store, from one seeded random sequence: where each
 * store is, who owns it, its hours, menus, products and offers. No database access; ids are
 * given when the drafts are written (demo-city.ts), so the same seed gives the same city.
 */
import { slugify } from '../../modules/stores/store-admin.service';
import {
  CASABLANCA_SHORE,
  FIRST_NAMES,
  LAST_NAMES,
  NEIGHBOURHOODS,
  OPTION_GROUPS,
  OWNER_AREA_CODES,
  ProductData,
  STORE_CATEGORIES,
  STORE_OFFERS,
  STREETS,
  StoreCategoryData,
  SUPPLEMENTS,
} from './catalog-data';
import { DEMO_ACCOUNTS, demoPerson, Person } from './demo-accounts';
import { Random, URL_SAFE_ALPHABET } from './random';

export const CASABLANCA = { lat: 33.5731, lng: -7.5898 };
export const TIMEZONE = 'Africa/Casablanca';

/** The first stores belong to the demo owners: categories of each owner's stores, in order. */
const DEMO_STORES: { owner: number; category: string }[] = [
  ...['Pizza', 'Burgers', 'Cafe', 'Moroccan', 'Desserts'].map((category) => ({ owner: 1, category })),
  ...['Sushi', 'Tacos', 'Bakery', 'Healthy'].map((category) => ({ owner: 2, category })),
  ...['Groceries', 'Pharmacy', 'Flowers'].map((category) => ({ owner: 3, category })),
];

export interface ProductDraft {
  name: string;
  description: string | null;
  priceCents: number;
  image: string;
  isFeatured: boolean;
  isActive: boolean;
  orderCount: number;
  groups: { name: string; required: boolean; min: number; max: number; values: [string, number][] }[];
  supplements: [string, number][];
}

export interface MenuDraft {
  name: string;
  description: string;
  isActive: boolean;
  categories: { name: string; products: ProductDraft[] }[];
}

export interface OfferDraft {
  title: string;
  description: string | null;
  discount: number;
  token: string;
  image: string | null;
  startsAt: string | null;
  endsAt: string | null;
}

export interface StoreDraft {
  owner: Person;
  categoryName: string;
  name: string;
  description: string;
  address: string;
  latitude: number;
  longitude: number;
  deliveryRadiusKm: number;
  deliveryPriceCents: number;
  freeDelivery: boolean;
  deliveryTime: number;
  rating: number;
  ratingCount: number;
  orderCount: number;
  isActive: boolean;
  hours: { day: number; opens: string; closes: string }[];
  menus: MenuDraft[];
  offers: OfferDraft[];
}

/** Large cities get smaller menus, so that 100 000 stores load in minutes. */
export function productScale(stores: number): number {
  if (stores <= 2_000) return 1;
  if (stores <= 20_000) return 0.6;
  return 0.35;
}

const DAY_MS = 86_400_000;
const round = (value: number, step: number) => Math.round(value / step) * step;
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export class CityPlan {
  private readonly rnd: Random;
  private readonly scale: number;
  private readonly usedNames = new Set<string>();
  private readonly usedTokens = new Set<string>();
  private readonly images = new Map<string, string>();
  private ownerCount = 0;
  private group: { left: number; owner: Person; category: StoreCategoryData; brand: string; chain: boolean } | undefined;

  constructor(
    seed: number,
    readonly total: number,
    private readonly center: { lat: number; lng: number },
    private readonly now: Date,
  ) {
    this.rnd = new Random(seed);
    this.scale = productScale(total);
  }

  /** Store number `index` (0-based); must be called in order. */
  store(index: number): StoreDraft {
    const demo = DEMO_STORES[index];
    let owner: Person;
    let category: StoreCategoryData;
    let brand: string;
    let chain = false;
    if (demo) {
      owner = demoPerson(DEMO_ACCOUNTS[demo.owner]);
      category = STORE_CATEGORIES.find((c) => c.name === demo.category)!;
      brand = this.rnd.pick(category.brands);
    } else {
      if (!this.group || this.group.left === 0) this.group = this.newGroup();
      this.group.left--;
      ({ owner, category, brand, chain } = this.group);
    }
    const place = this.place(demo ? 3 : undefined);
    const name = chain || this.usedNames.has(brand) ? `${brand} ${place.neighbourhood}` : brand;
    this.usedNames.add(name);
    const ratingCount = Math.max(3, Math.floor(2000 * this.rnd.next() ** 2.5));
    const radius = (place.far ? this.rnd.int(12, 20) : this.rnd.int(6, 20)) / 2;
    const free = this.rnd.chance(0.2);
    const draft: StoreDraft = {
      owner,
      categoryName: category.name,
      name,
      description: `${category.tagline} in ${place.neighbourhood}.`,
      address: place.address,
      latitude: place.lat,
      longitude: place.lng,
      deliveryRadiusKm: radius,
      deliveryPriceCents: free ? 0 : this.rnd.int(5, 25) * 100,
      freeDelivery: free,
      deliveryTime: clamp(round(12 + radius * 3 + this.rnd.gaussian() * 5, 5), 15, 60),
      rating: clamp(Math.round((4.2 + 0.35 * this.rnd.gaussian()) * 10) / 10, 3, 5),
      ratingCount,
      orderCount: ratingCount * this.rnd.int(3, 8) + this.rnd.int(0, 40),
      isActive: demo ? true : this.rnd.chance(0.98),
      hours: this.hours(category, index === 0),
      menus: [],
      offers: [],
    };
    draft.menus = this.menus(category, draft.orderCount, Boolean(demo));
    draft.offers = this.storeOffers(index === 0);
    return draft;
  }

  private newGroup(): NonNullable<CityPlan['group']> {
    const roll = this.rnd.next();
    const size = roll < 0.65 ? 1 : roll < 0.85 ? this.rnd.int(2, 3) : roll < 0.97 ? this.rnd.int(4, 8) : this.rnd.int(9, 25);
    const category = this.rnd.weighted(STORE_CATEGORIES);
    return { left: size, owner: this.newOwner(), category, brand: this.rnd.pick(category.brands), chain: size > 1 };
  }

  /** +1 <area> 555 xxxx: valid North American numbers reserved for fiction. */
  private newOwner(): Person {
    const n = this.ownerCount++ % (OWNER_AREA_CODES.length * 10_000);
    const area = OWNER_AREA_CODES[Math.floor(n / 10_000)];
    return {
      phone: `+1${area}555${String(n % 10_000).padStart(4, '0')}`,
      firstName: this.rnd.pick(FIRST_NAMES),
      lastName: this.rnd.pick(LAST_NAMES),
    };
  }

  /** Most stores within ~12 km (denser near the centre), one in ten up to 25 km out; never at sea. */
  private place(maxKm?: number) {
    for (let attempt = 0; ; attempt++) {
      const far = maxKm === undefined && this.rnd.chance(0.1);
      const km = maxKm !== undefined ? maxKm * this.rnd.next() : far ? this.rnd.float(12, 25) : 12 * this.rnd.next() ** 0.85;
      const bearing = this.rnd.float(0, 2 * Math.PI);
      const lat = this.center.lat + (km / 111.32) * Math.cos(bearing);
      const lng = this.center.lng + (km / (111.32 * Math.cos((this.center.lat * Math.PI) / 180))) * Math.sin(bearing);
      if (!this.onLand(lat, lng) && attempt < 50) continue;
      const ring = NEIGHBOURHOODS.find((r) => km <= r.maxKm)!;
      const degrees = (bearing * 180) / Math.PI;
      const gap = (b: number) => Math.min(Math.abs(b - degrees), 360 - Math.abs(b - degrees));
      const neighbourhood = ring.places.reduce((best, p) => (gap(p[1]) < gap(best[1]) ? p : best))[0];
      const town = ring.maxKm === Infinity ? '' : ', Casablanca';
      return {
        lat: Math.round(lat * 1e6) / 1e6,
        lng: Math.round(lng * 1e6) / 1e6,
        far: km > 12,
        neighbourhood,
        address: `${this.rnd.int(1, 250)} ${this.rnd.pick(STREETS)}, ${neighbourhood}${town}`,
      };
    }
  }

  private onLand(lat: number, lng: number): boolean {
    if (this.center.lat !== CASABLANCA.lat || this.center.lng !== CASABLANCA.lng) return true;
    const shore = CASABLANCA_SHORE;
    let i = 1;
    while (i < shore.length - 1 && shore[i][0] < lng) i++;
    const [[x0, y0], [x1, y1]] = [shore[i - 1], shore[i]];
    const shoreLat = y0 + ((y1 - y0) * (lng - x0)) / (x1 - x0);
    return lat < shoreLat - 0.002;
  }

  /** The first store always has late hours past midnight (12:00–02:00), to show store_is_open. */
  private hours(category: StoreCategoryData, late: boolean): StoreDraft['hours'] {
    const pattern = late ? { weight: 1, periods: [['12:00', '02:00']] as [string, string][] } : this.rnd.weighted(category.hours);
    const dayOff = pattern.closedDay ? this.rnd.pick([0, 1]) : -1;
    const hours: StoreDraft['hours'] = [];
    for (let day = 0; day < 7; day++) {
      if (day === dayOff) continue;
      for (const [opens, closes] of pattern.periods) hours.push({ day, opens, closes });
    }
    return hours;
  }

  private menus(category: StoreCategoryData, storeOrders: number, demo: boolean): MenuDraft[] {
    const priceLevel = this.rnd.float(0.85, 1.25);
    const menus: MenuDraft[] = [];
    category.menus.forEach((menu, m) => {
      if (m > 0 && !this.rnd.chance(0.5 + 0.5 * this.scale)) return;
      menus.push({
        name: menu.name,
        description: menu.description,
        isActive: (demo && m === 0) || this.rnd.chance(0.97),
        categories: menu.categories.map((c) => {
          const count = Math.max(1, Math.round(c.products.length * this.scale * this.rnd.float(0.6, 1)));
          const chosen = new Set(this.rnd.sample(c.products, count));
          return { name: c.name, products: c.products.filter((p) => chosen.has(p)).map((p) => this.product(p, priceLevel, storeOrders)) };
        }),
      });
    });
    return menus;
  }

  private product(p: ProductData, priceLevel: number, storeOrders: number): ProductDraft {
    const supplements = p.supplements ? SUPPLEMENTS[p.supplements] : [];
    const keep = new Set(this.rnd.sample(supplements, this.rnd.int(Math.min(2, supplements.length), supplements.length)));
    return {
      name: p.name,
      description: p.description ?? null,
      priceCents: Math.max(100, round(p.price * priceLevel, 0.5) * 100),
      image: this.productImage(p.name),
      isFeatured: this.rnd.chance(0.1),
      isActive: this.rnd.chance(0.95),
      orderCount: Math.floor(storeOrders * 0.25 * this.rnd.next() ** 3),
      groups: (p.options ?? []).map((key) => {
        const g = OPTION_GROUPS[key];
        return { name: g.name, required: g.required, min: g.min, max: g.max, values: g.values.map(([n, price]) => [n, price * 100]) };
      }),
      supplements: supplements.filter((s) => keep.has(s)).map(([n, price]) => [n, price * 100]),
    };
  }

  private productImage(name: string): string {
    let url = this.images.get(name);
    if (!url) this.images.set(name, (url = `https://cdn.example.com/products/${slugify(name)}.jpg`));
    return url;
  }

  /** ~15% of stores run an offer now, a few have an expired or an upcoming one. */
  private storeOffers(forceActive: boolean): OfferDraft[] {
    const roll = forceActive ? 0 : this.rnd.next();
    if (roll >= 0.22) return [];
    const days = (n: number) => new Date(this.now.getTime() + n * DAY_MS).toISOString();
    let startsAt: string | null;
    let endsAt: string | null;
    if (roll < 0.15) {
      startsAt = days(-this.rnd.int(1, 30));
      endsAt = this.rnd.chance(0.5) ? null : days(this.rnd.int(3, 60));
    } else if (roll < 0.19) {
      startsAt = days(-this.rnd.int(30, 60));
      endsAt = days(-this.rnd.int(1, 20));
    } else {
      const start = this.rnd.int(2, 20);
      startsAt = days(start);
      endsAt = days(start + this.rnd.int(7, 30));
    }
    const discount = this.rnd.int(1, 10) * 5;
    const text = this.rnd.pick(STORE_OFFERS);
    return [
      {
        title: text.title.replace('{d}', String(discount)),
        description: text.description,
        discount,
        token: this.token(),
        image: null,
        startsAt,
        endsAt,
      },
    ];
  }

  /** 16 URL-safe characters, unique in the city. */
  token(): string {
    for (;;) {
      const token = this.rnd.string(16, URL_SAFE_ALPHABET);
      if (!this.usedTokens.has(token)) {
        this.usedTokens.add(token);
        return token;
      }
    }
  }

  get random(): Random {
    return this.rnd;
  }
}
