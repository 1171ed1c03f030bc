/** An entry of the owner's "sent" log of an order (sent-log.service.ts). */
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType()
export class SentNotification {
  @Field({ description: 'new_order, order_accepted, ... (the push data `type`).' })
  kind!: string;

  @Field({ description: 'customer, owner or driver.' })
  recipient!: string;

  @Field({ description: 'push, whatsapp or web_push.' })
  channel!: string;

  @Field({ description: 'pending (waiting or retrying), sent, failed (given up: see error) or skipped.' })
  status!: string;

  @Field(() => Int)
  attempts!: number;

  @Field(() => String, { nullable: true })
  error!: string | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  sentAt!: Date | null;
}
