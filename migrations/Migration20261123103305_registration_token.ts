import { Migration } from '@mikro-orm/migrations';

export class Migration20261123103305_registration_token extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "phone_verifications" add column "token_hash" varchar(64) null, add column "used_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "phone_verifications" drop column "token_hash", drop column "used_at";`);
  }
}
