import { Entity, ManyToOne, PrimaryKey, Property, Opt, Ref, OptionalProps } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { MainCategory } from './main-category.entity';

/** What kind of store: Pizza, Sushi, Bakery... The home screen's quick-access categories. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'store_categories' })
export class StoreCategory {
  /** Computed getters, never given when creating. */
  [OptionalProps]?: 'mainCategoryId';

  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Field()
  @Property({ length: 100 })
  name!: string;

  @Field(() => String, { nullable: true })
  @Property({ length: 100, nullable: true })
  icon?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ length: 500, nullable: true })
  image?: string | null;

  @ManyToOne(() => MainCategory, { ref: true, nullable: true, deleteRule: 'set null' })
  mainCategory?: Ref<MainCategory> | null;

  @Field(() => Int, { nullable: true })
  get mainCategoryId(): number | null {
    return this.mainCategory?.id ?? null;
  }

  @Field(() => Int)
  @Property({ default: 0 })
  sortOrder: number & Opt = 0;
}
