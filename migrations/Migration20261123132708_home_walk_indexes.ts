import { Migration } from '@mikro-orm/migrations';

export class Migration20261123132708_home_walk_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "stores_delivery_radius_index" on "stores" ("delivery_radius_km") where is_active;`);
    this.addSql(
      `create index "stores_popularity_index" on "stores" ("order_count" desc, "rating" desc, "id") include ("earth", "delivery_radius_km", "rating_count") where is_active;`,
    );
    this.addSql(
      `create index "stores_rating_index" on "stores" ("rating" desc, "rating_count" desc) include ("earth", "delivery_radius_km", "order_count", "id") where is_active;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "stores_delivery_radius_index";`);
    this.addSql(`drop index "stores_popularity_index";`);
    this.addSql(`drop index "stores_rating_index";`);
  }
}
