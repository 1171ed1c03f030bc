import { Entity, Opt, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';

/**
 * When a row was created and last changed, set by PostgreSQL on insert and by the ORM on
 * every flush that changes the row; answered as ISO 8601 UTC. Not a table of its own.
 */
@ObjectType({ simpleResolvers: true })
@Entity({ abstract: true })
export abstract class Timestamped {
  @Field(() => Date)
  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date)
  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}

/** The creation time alone, for rows that are never changed (events, sends, keys). */
export const CreatedAt = () => Property({ type: 'timestamptz', defaultRaw: 'now()' });
