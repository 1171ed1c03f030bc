import { Field, InputType, Int } from 'type-graphql';
import { Min } from 'class-validator';

@InputType()
export class StartPaymentInput {
  @Field(() => Int)
  @Min(1, { message: 'orderId must be a positive id' })
  orderId!: number;

  @Field(() => Int)
  @Min(1, { message: 'paymentMethodId must be a positive id' })
  paymentMethodId!: number;
}
