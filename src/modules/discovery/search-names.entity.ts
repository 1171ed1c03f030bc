import { Entity, Index, PrimaryKey } from '@mikro-orm/core';

/**
 * Every distinct folded name (`search_text(name)`) of the stores and of the products, kept by
 * triggers on `stores` and `products` (migration search_names): search
 * ranks names, not rows, then reads each matching name's best rows from an index
 * (docs/decisions.md "Search: ranked names, one prepared statement"). A name whose rows are gone or
 * renamed stays and matches nothing. Never read through entities.
 */
@Entity({ tableName: 'store_search_names' })
@Index({
  name: 'store_search_names_trgm_index',
  expression: 'create index "store_search_names_trgm_index" on "store_search_names" using gin ("search_name" gin_trgm_ops)',
})
export class StoreSearchName {
  @PrimaryKey({ type: 'text' })
  searchName!: string;
}

@Entity({ tableName: 'product_search_names' })
@Index({
  name: 'product_search_names_trgm_index',
  expression: 'create index "product_search_names_trgm_index" on "product_search_names" using gin ("search_name" gin_trgm_ops)',
})
export class ProductSearchName {
  @PrimaryKey({ type: 'text' })
  searchName!: string;
}
