/**
 * The tables each cached REST row's answer reads (`cache.reads` in the route table): the answer
 * cache keeps an answer until a write to one of them (rest/answer-cache.ts; docs/decisions.md
 * "City scale: the answer cache"). Every table a row's statements read, through views and the
 * database's functions too, must be here: test/cache-reads.test.ts EXPLAINs what each row
 * sends on a seeded city and fails on a table its row does not declare. A table declared and
 * not read only costs hits.
 */

/** A store as a card shows it: its row, its category, whether it is open now and has an offer running. */
const STORE_CARD = ['stores', 'store_categories', 'store_opening_hours', 'offers'] as const;
/** Products as customers see them: only those whose menu and menu section are visible. */
const VISIBLE_PRODUCTS = ['products', 'menus', 'menu_categories'] as const;

/** Where few stores deliver, the home statement ranks the stores the reach index lists, at its version. */
export const HOME_READS: readonly string[] = ['main_categories', ...STORE_CARD, ...VISIBLE_PRODUCTS, 'store_reach_version'];
export const SEARCH_READS: readonly string[] = ['stores', 'store_search_names', 'product_search_names', ...VISIBLE_PRODUCTS];
/** The reach index (in process) is rebuilt from the store cards, or catches up from its change log, when its version moves. */
export const NEARBY_READS: readonly string[] = [...STORE_CARD, 'store_reach_version', 'store_reach_changes'];
export const ADS_READS: readonly string[] = ['ads'];
export const CATALOG_READS: readonly string[] = [
  ...STORE_CARD,
  ...VISIBLE_PRODUCTS,
  'product_option_groups',
  'product_option_values',
  'product_supplements',
];
export const STORE_PRODUCTS_READS: readonly string[] = ['stores', ...VISIBLE_PRODUCTS];
export const STORE_DETAILS_READS: readonly string[] = STORE_CARD;
export const STORE_CATEGORIES_READS: readonly string[] = ['store_categories'];
export const CATEGORIES_WITH_STORES_READS: readonly string[] = ['store_categories', 'stores', 'store_opening_hours'];
/** Offers are shown while their store is active, or to its owner. */
export const OFFERS_READS: readonly string[] = ['offers', 'stores'];
export const PAYMENT_METHODS_READS: readonly string[] = ['payment_methods'];
