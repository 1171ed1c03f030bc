import { Migration } from '@mikro-orm/migrations';

export class Migration20261123010702_geo_and_home_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index "stores_location_index";`);

    this.addSql(`alter table "stores" add column "earth" cube generated always as (ll_to_earth(latitude, longitude)) stored null;`);
    this.addSql(`create index "stores_earth_index" on "stores" using gist ("earth");`);

    this.addSql(`create index "products_featured_index" on "products" ("order_count" desc, "id") where is_featured;`);
    this.addSql(`create index "products_trending_index" on "products" ("order_count" desc, "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "products_featured_index";`);
    this.addSql(`drop index "products_trending_index";`);

    this.addSql(`drop index "stores_earth_index";`);
    this.addSql(`alter table "stores" drop column "earth";`);

    this.addSql(`CREATE INDEX stores_location_index ON public.stores USING gist (ll_to_earth(latitude, longitude));`);
  }
}
