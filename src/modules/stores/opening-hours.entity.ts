import { Entity, Index, ManyToOne, PrimaryKey, Property, Ref } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { Store } from './store.entity';

/**
 * One opening period on a weekday, in the store's own time zone. `closesAt` at or before
 * `opensAt` means the period runs past midnight into the next day (18:00–02:00).
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'store_opening_hours' })
@Index({ properties: ['store', 'dayOfWeek'] })
export class OpeningHours {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Store, { ref: true, deleteRule: 'cascade' })
  store!: Ref<Store>;

  @Field(() => Int, { description: '0 = Sunday … 6 = Saturday' })
  @Property({ type: 'smallint' })
  dayOfWeek!: number;

  @Field({ description: 'HH:MM:SS, local time' })
  @Property({ type: 'time' })
  opensAt!: string;

  @Field({ description: 'HH:MM:SS, local time; at or before opensAt: the next day' })
  @Property({ type: 'time' })
  closesAt!: string;
}
