import { Entity, PrimaryKey, Property, Opt } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';

/** Top-level filter of the home screen (spec §2.2), e.g. Food, Groceries, Pharmacy. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'main_categories' })
export class MainCategory {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Field()
  @Property({ length: 100 })
  name!: string;

  @Field(() => String, { nullable: true })
  @Property({ length: 100, nullable: true })
  icon?: string | null;

  @Field()
  @Property({ length: 500 })
  image!: string;

  @Field(() => Int)
  @Property({ default: 0 })
  sortOrder: number & Opt = 0;
}
