import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { Store } from '../stores/store.entity';

/** A store's menu (spec §2.12), e.g. "Lunch"; holds menu categories. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'menus' })
export class Menu {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Store, { ref: true, deleteRule: 'cascade' })
  @Index()
  store!: Ref<Store>;

  @Field()
  @Property({ length: 150 })
  name!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => Boolean)
  @Property({ default: true })
  isActive: boolean & Opt = true;

  @Field(() => Int)
  @Property({ default: 0 })
  sortOrder: number & Opt = 0;

  @Field(() => Int)
  get storeId(): number & Opt {
    return this.store.id;
  }
}
