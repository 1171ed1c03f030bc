import { Entity, Index, ManyToOne, PrimaryKey, Property, Ref } from '@mikro-orm/core';
import { Timestamped } from '../../common/timestamped';
import { Field, Int, ObjectType } from 'type-graphql';
import { User } from '../users/user.entity';
import { CoordinateField } from '../../common/coordinate-field';

/** A customer's saved delivery address; checkout takes its id. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'user_addresses' })
export class UserAddress extends Timestamped {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade' })
  @Index()
  user!: Ref<User>;

  @Field({ description: 'Home, Work...' })
  @Property({ length: 50 })
  label!: string;

  @Field()
  @Property({ length: 255 })
  line1!: string;

  @Field(() => String, { nullable: true })
  @Property({ length: 255, nullable: true })
  line2?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ length: 100, nullable: true })
  city?: string | null;

  @CoordinateField()
  @Property({ type: 'double' })
  latitude!: number;

  @CoordinateField()
  @Property({ type: 'double' })
  longitude!: number;

  @Field(() => String, { nullable: true, description: 'For the driver: floor, door code...' })
  @Property({ length: 500, nullable: true })
  instructions?: string | null;
}
