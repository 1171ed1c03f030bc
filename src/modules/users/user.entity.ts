import { Entity, PrimaryKey, Property, Opt } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A person with an account: customer, store owner or driver.' })
@Entity({ tableName: 'users' })
export class User {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Field({ description: 'E.164, e.g. +212600000001' })
  @Property({ unique: true, length: 16 })
  phoneNumber!: string;

  @Field()
  @Property({ length: 100 })
  firstName!: string;

  @Field()
  @Property({ length: 100 })
  lastName!: string;

  @Field(() => Date)
  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date)
  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
