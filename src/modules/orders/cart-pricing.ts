/**
 * Prices a cart from the database alone: base price, chosen option values and supplements,
 * quantity. Every problem is reported under its item's path (`items.2.options`), all at once.
 */
import { FieldErrors } from '../../common/errors';
import { pricingColumns, PricingRows } from '../catalog/product-query';
import { CheckoutItemInput } from './checkout.inputs';

export interface PricedExtra {
  kind: 'option' | 'supplement';
  id: number;
  name: string;
  priceCents: number;
}

export interface PricedItem {
  productId: number;
  productName: string;
  quantity: number;
  specialInstructions: string | null;
  basePriceCents: number;
  unitPriceCents: number;
  totalPriceCents: number;
  extras: PricedExtra[];
}

/** The select list reading what `items` are priced from (checkout-query.ts reads it with the store). */
export function cartColumns(items: CheckoutItemInput[]): { sql: string; params: string[] } {
  return pricingColumns(
    [...new Set(items.map((i) => i.productId))],
    [...new Set(items.flatMap((i) => i.options ?? []))],
    [...new Set(items.flatMap((i) => i.supplements ?? []))],
  );
}

/** `rows`: what `cartColumns(items)` read. */
export function priceCart(rows: PricingRows, storeId: number, items: CheckoutItemInput[], errors: FieldErrors): PricedItem[] {
  const products = new Map(rows.products.map((p) => [p.id, p]));
  const groups = rows.groups;
  const values = new Map(rows.values.map((v) => [v.id, v]));
  const supplements = new Map(rows.supplements.map((s) => [s.id, s]));

  const fail = (path: string, message: string) => (errors[path] ??= []).push(message);
  return items.map((item, index) => {
    const at = `items.${index}`;
    const product = products.get(item.productId);
    const priced: PricedItem = {
      productId: item.productId,
      productName: product?.name ?? '',
      quantity: item.quantity,
      specialInstructions: item.specialInstructions?.trim() || null,
      basePriceCents: product?.price_cents ?? 0,
      unitPriceCents: 0,
      totalPriceCents: 0,
      extras: [],
    };
    if (!product || !product.visible) {
      fail(`${at}.productId`, 'The selected product is not available.');
      return priced;
    }
    if (product.store_id !== storeId) {
      fail(`${at}.productId`, 'The product belongs to another store: an order holds products of one store.');
      return priced;
    }
    const chosen = item.options ?? [];
    if (new Set(chosen).size !== chosen.length) fail(`${at}.options`, 'An option value is chosen twice.');
    const perGroup = new Map<number, number>();
    for (const id of chosen) {
      const value = values.get(id);
      if (!value || value.product_id !== product.id) {
        fail(`${at}.options`, `Option ${id} is not an option of this product.`);
        continue;
      }
      perGroup.set(value.group_id, (perGroup.get(value.group_id) ?? 0) + 1);
      priced.extras.push({ kind: 'option', id, name: value.name, priceCents: value.price_cents });
    }
    for (const group of groups.filter((g) => g.product_id === product.id)) {
      const count = perGroup.get(group.id) ?? 0;
      const min = group.is_required ? Math.max(1, group.min_select) : count > 0 ? group.min_select : 0;
      if (count < min) fail(`${at}.options`, `Choose at least ${min} for "${group.name}".`);
      if (count > group.max_select) fail(`${at}.options`, `Choose at most ${group.max_select} for "${group.name}".`);
    }
    const added = item.supplements ?? [];
    if (new Set(added).size !== added.length) fail(`${at}.supplements`, 'A supplement is chosen twice.');
    for (const id of added) {
      const supplement = supplements.get(id);
      if (!supplement || supplement.product_id !== product.id) {
        fail(`${at}.supplements`, `Supplement ${id} is not a supplement of this product.`);
        continue;
      }
      priced.extras.push({ kind: 'supplement', id, name: supplement.name, priceCents: supplement.price_cents });
    }
    priced.unitPriceCents = product.price_cents + priced.extras.reduce((sum, e) => sum + e.priceCents, 0);
    priced.totalPriceCents = priced.unitPriceCents * item.quantity;
    return priced;
  });
}
