import { Migration } from '@mikro-orm/migrations';

export class Migration20261123113000_covering_position_index extends Migration {
  override async up(): Promise<void> {
    // Changed by hand (docs/decisions.md "City scale"). The position index of active stores
    // now carries the columns that nearby's filters, sorts and count and the home blocks
    // read, so counting and ranking the stores that deliver to a point is an index-only scan
    // (cube GiST can return its keys) instead of a visit of every wide store row in the box.
    this.addSql(`drop index "stores_earth_index";`);
    this.addSql(
      `create index "stores_earth_index" on "stores" using gist ("earth") include ("id", "delivery_radius_km", "rating", "rating_count", "order_count", "category_id", "free_delivery", "delivery_price_cents", "delivery_time") where is_active;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "stores_earth_index";`);
    this.addSql(`create index "stores_earth_index" on "stores" using gist ("earth");`);
  }
}
