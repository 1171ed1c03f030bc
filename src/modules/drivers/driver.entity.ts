import { Entity, Index, OneToOne, PrimaryKey, Property, Opt, Ref } from '@mikro-orm/core';
import { CreatedAt } from '../../common/timestamped';
import { Field, Int, ObjectType } from 'type-graphql';
import { User } from '../users/user.entity';
import { CoordinateField } from '../../common/coordinate-field';

/**
 * A driver profile on a user: the same phone sign-in, plus availability and position.
 * Operators create profiles (`npm run driver`).
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'drivers' })
@Index({
  name: 'drivers_location_index',
  expression: 'create index "drivers_location_index" on "drivers" using gist (ll_to_earth(latitude, longitude)) where is_online',
})
export class Driver {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @OneToOne(() => User, { ref: true, owner: true, unique: true, deleteRule: 'cascade' })
  user!: Ref<User>;

  @Field(() => Boolean)
  @Property({ default: false })
  isOnline: boolean & Opt = false;

  @CoordinateField({ nullable: true })
  @Property({ type: 'double', nullable: true })
  latitude?: number | null;

  @CoordinateField({ nullable: true })
  @Property({ type: 'double', nullable: true })
  longitude?: number | null;

  @Field(() => Date, { nullable: true })
  @Property({ type: 'timestamptz', nullable: true })
  locationUpdatedAt?: Date | null;

  @CreatedAt()
  createdAt: Date & Opt = new Date();
}
