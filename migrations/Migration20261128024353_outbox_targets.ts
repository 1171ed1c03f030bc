import { Migration } from '@mikro-orm/migrations';

/**
 * What an event's statement adds for its notifications, made cheaper (docs/perf/2026-11-28-notifications-pg-2.md):
 * - `notification_targets`, each user's channels and addresses as the outbox's rows name them, kept
 *   by the triggers below: the statement joins one index instead of reading preferences, devices
 *   and browsers (twice each for the WhatsApp fallback) per recipient;
 * - the outbox without foreign keys (the order's and the payment event's: each a query and a
 *   key-share lock per row, on what the same statement had just written), and one unique index
 *   leading with the order instead of the order's index and a unique index per source.
 */
export class Migration20261128024353_outbox_targets extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "notification_targets" ("user_id" int not null, "channel" varchar(16) not null, "target" varchar(64) not null, constraint "notification_targets_pkey" primary key ("user_id", "channel", "target"));`,
    );

    this.addSql(
      `alter table "notification_targets" add constraint "notification_targets_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`drop index "notification_outbox_event_unique";`);
    this.addSql(`drop index "notification_outbox_order_id_index";`);
    this.addSql(`drop index "notification_outbox_payment_event_unique";`);

    // An event belongs to one order: unique with its order as without; NULLS NOT DISTINCT makes
    // the source the row does not have (event or payment event: the check says one) count as a value.
    this.addSql(
      `create unique index "notification_outbox_unique" on "notification_outbox" ("order_id", "event_id", "payment_event_id", "kind", "channel", "target") nulls not distinct;`,
    );

    // Added by hand. A user's targets, computed as the outbox's writers computed them per event
    // before: one per device with a push token and per browser subscribed to Web Push, unless
    // that channel is off; WhatsApp when neither gives a row, unless it is off too.
    const targetsOf = (where: string) => `insert into notification_targets (user_id, channel, target)
        select u.id, t.channel, t.target from users u
        left join notification_preferences p on p.user_id = u.id
        cross join lateral (
          select 'push' as channel, 'device:' || dev.id as target from user_devices dev
          where coalesce(p.push, true) and dev.user_id = u.id and dev.push_token is not null
          union all
          select 'web_push', 'webpush:' || b.id from web_push_subscriptions b where coalesce(p.web_push, true) and b.user_id = u.id
          union all
          select 'whatsapp', 'phone'
          where coalesce(p.whatsapp, true)
            and not (coalesce(p.push, true) and exists (select from user_devices dev where dev.user_id = u.id and dev.push_token is not null))
            and not (coalesce(p.web_push, true) and exists (select from web_push_subscriptions b where b.user_id = u.id))
        ) t${where}`;
    // One writer of a user's targets at a time (the transaction's lock on the user's row), each
    // reading what the one before it committed (a read-committed statement's own snapshot): two
    // transactions removing a device each would otherwise each keep the other's. A row lock, not
    // an advisory one: it takes no room in the shared lock table, which a bulk load of tens of
    // thousands of users in one transaction (the demo city's owners) would fill. `no key update`
    // does not wait for, nor block, the key-share locks of foreign-key checks (orders, devices).
    this.addSql(`create function notification_targets_refresh(target_user int) returns void language plpgsql as $fn$
      begin
        perform 1 from users where id = target_user for no key update;
        delete from notification_targets where user_id = target_user;
        ${targetsOf(' where u.id = target_user')};
      end $fn$;`);
    // A row of user_devices, web_push_subscriptions or notification_preferences (each has user_id).
    this.addSql(`create function notification_targets_of_row() returns trigger language plpgsql as $fn$
      begin
        if tg_op <> 'INSERT' then perform notification_targets_refresh(old.user_id); end if;
        if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.user_id <> old.user_id) then perform notification_targets_refresh(new.user_id); end if;
        return null;
      end $fn$;`);
    this.addSql(`create function notification_targets_of_new_user() returns trigger language plpgsql as $fn$
      begin
        perform notification_targets_refresh(new.id);
        return null;
      end $fn$;`);
    this.addSql(`create trigger "users_notification_targets" after insert on "users"
      for each row execute function notification_targets_of_new_user();`);
    for (const [table, changed] of [
      // Only a token's arrival or removal changes a device's targets (its address is read at the send).
      ['user_devices', `(old.push_token is null) <> (new.push_token is null) or old.user_id <> new.user_id`],
      ['web_push_subscriptions', `old.user_id <> new.user_id`],
      ['notification_preferences', `old.push <> new.push or old.web_push <> new.web_push or old.whatsapp <> new.whatsapp`],
    ]) {
      this.addSql(`create trigger "${table}_notification_targets" after insert or delete on "${table}"
        for each row execute function notification_targets_of_row();`);
      this.addSql(`create trigger "${table}_notification_targets_update" after update on "${table}"
        for each row when (${changed}) execute function notification_targets_of_row();`);
    }
    this.addSql(`${targetsOf('')};`);

    // Last: dropping a foreign key locks the table it refers to (orders, payment_events) against
    // every read until the migration commits; after the index and the backfill, that is moments.
    this.addSql(`alter table "notification_outbox" drop constraint "notification_outbox_order_id_foreign";`);
    this.addSql(`alter table "notification_outbox" drop constraint "notification_outbox_payment_event_id_foreign";`);
  }

  override async down(): Promise<void> {
    for (const table of ['user_devices', 'web_push_subscriptions', 'notification_preferences']) {
      this.addSql(`drop trigger "${table}_notification_targets" on "${table}";`);
      this.addSql(`drop trigger "${table}_notification_targets_update" on "${table}";`);
    }
    this.addSql(`drop trigger "users_notification_targets" on "users";`);
    this.addSql(`drop function notification_targets_of_new_user();`);
    this.addSql(`drop function notification_targets_of_row();`);
    this.addSql(`drop function notification_targets_refresh(int);`);
    this.addSql(`drop table if exists "notification_targets" cascade;`);

    this.addSql(`drop index "notification_outbox_unique";`);

    // Rows whose order or payment event went while no key held them would fail the keys' validation.
    this.addSql(`delete from notification_outbox n where not exists (select from orders o where o.id = n.order_id)
      or (n.payment_event_id is not null and not exists (select from payment_events e where e.id = n.payment_event_id));`);

    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_order_id_foreign" foreign key ("order_id") references "orders" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_payment_event_id_foreign" foreign key ("payment_event_id") references "payment_events" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create unique index "notification_outbox_event_unique" on "notification_outbox" ("event_id", "kind", "channel", "target") where event_id is not null;`,
    );
    this.addSql(`create index "notification_outbox_order_id_index" on "notification_outbox" ("order_id");`);
    this.addSql(
      `create unique index "notification_outbox_payment_event_unique" on "notification_outbox" ("payment_event_id", "kind", "channel", "target") where payment_event_id is not null;`,
    );
  }
}
