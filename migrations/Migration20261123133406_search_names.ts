import { Migration } from '@mikro-orm/migrations';

export class Migration20261123133406_search_names extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "product_search_names" ("search_name" text not null, constraint "product_search_names_pkey" primary key ("search_name"));`,
    );
    this.addSql(`create index "product_search_names_trgm_index" on "product_search_names" using gin ("search_name" gin_trgm_ops);`);

    this.addSql(
      `create table "store_search_names" ("search_name" text not null, constraint "store_search_names_pkey" primary key ("search_name"));`,
    );
    this.addSql(`create index "store_search_names_trgm_index" on "store_search_names" using gin ("search_name" gin_trgm_ops);`);

    this.addSql(
      `create index "stores_search_name_index" on "stores" (search_text(name), "rating" desc, "id") include ("name") where is_active;`,
    );

    this.addSql(`create index "products_search_name_index" on "products" (search_text(name), "order_count" desc, "id");`);

    // Added by hand (docs/decisions.md "City scale: home screen and search"). The names
    // tables hold every folded name of the stores and products: inserted names arrive once per
    // statement (a bulk load of 100 000 rows is one insert ... select), renamed ones per row.
    // Names are never removed: a name left without rows matches nothing.
    this.addSql(`create function remember_search_names() returns trigger language plpgsql as $fn$
      begin
        execute format('insert into %I (search_name) select distinct search_text(name) from new_rows on conflict do nothing', tg_argv[0]);
        return null;
      end $fn$;`);
    this.addSql(`create function remember_search_name() returns trigger language plpgsql as $fn$
      begin
        execute format('insert into %I (search_name) values (search_text($1)) on conflict do nothing', tg_argv[0]) using new.name;
        return null;
      end $fn$;`);
    for (const [table, names] of [
      ['stores', 'store_search_names'],
      ['products', 'product_search_names'],
    ]) {
      this.addSql(`create trigger "${table}_search_names_insert" after insert on "${table}" referencing new table as new_rows
        for each statement execute function remember_search_names('${names}');`);
      this.addSql(`create trigger "${table}_search_names_rename" after update of name on "${table}"
        for each row when (old.name is distinct from new.name) execute function remember_search_name('${names}');`);
      this.addSql(`insert into "${names}" (search_name) select distinct search_text(name) from "${table}" on conflict do nothing;`);
      this.addSql(`analyze "${names}";`);
    }
    // pg_trgm declares word similarity as cheap as an integer comparison, so on a names table
    // of a few thousand rows the planner tested every name (3-6 µs each, 12-25 ms) instead of
    // asking the trigram index (1 ms). The cost says what it is. An `alter extension pg_trgm
    // update` may reset it: set it again then.
    this.addSql(`alter function word_similarity_op(text, text) cost 50;`);
    this.addSql(`alter function word_similarity_commutator_op(text, text) cost 50;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter function word_similarity_op(text, text) cost 1;`);
    this.addSql(`alter function word_similarity_commutator_op(text, text) cost 1;`);
    this.addSql(`drop trigger "stores_search_names_insert" on "stores";`);
    this.addSql(`drop trigger "stores_search_names_rename" on "stores";`);
    this.addSql(`drop trigger "products_search_names_insert" on "products";`);
    this.addSql(`drop trigger "products_search_names_rename" on "products";`);
    this.addSql(`drop function remember_search_names();`);
    this.addSql(`drop function remember_search_name();`);

    this.addSql(`drop table if exists "product_search_names" cascade;`);

    this.addSql(`drop table if exists "store_search_names" cascade;`);

    this.addSql(`drop index "products_search_name_index";`);

    this.addSql(`drop index "stores_search_name_index";`);
  }
}
