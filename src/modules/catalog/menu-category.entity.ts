import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref, OptionalProps } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { Store } from '../stores/store.entity';
import { Menu } from './menu.entity';

/**
 * A section of a menu (spec §2.13), e.g. "Pizzas". Belongs to a store; `menu` is optional in
 * the spec, and a category without a menu is not shown to customers until it gets one.
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'menu_categories' })
export class MenuCategory {
  /** Computed getters, never given when creating. */
  [OptionalProps]?: 'menuId';

  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Store, { ref: true, deleteRule: 'cascade' })
  @Index()
  store!: Ref<Store>;

  @ManyToOne(() => Menu, { ref: true, nullable: true, deleteRule: 'cascade' })
  @Index()
  menu?: Ref<Menu> | null;

  @Field()
  @Property({ length: 150 })
  name!: string;

  @Field(() => Int)
  @Property({ default: 0 })
  sortOrder: number & Opt = 0;

  @Field(() => Int)
  get storeId(): number & Opt {
    return this.store.id;
  }

  @Field(() => Int, { nullable: true })
  get menuId(): number | null {
    return this.menu?.id ?? null;
  }
}
