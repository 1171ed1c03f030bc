import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Timestamped } from '../../common/timestamped';
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ simpleResolvers: true, description: 'A person with an account: customer, store owner or driver.' })
@Entity({ tableName: 'users' })
export class User extends Timestamped {
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
}
