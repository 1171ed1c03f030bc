import { Field, Float, Int, ObjectType } from 'type-graphql';
import { PaymentMethod } from './payment-method.entity';
import type { PaymentStart } from './payment.service';

@ObjectType('PaymentStart', { simpleResolvers: true, description: 'What the app does next to pay (spec §4.4 start payment).' })
export class PaymentStartType implements Omit<PaymentStart, 'methodId'> {
  @Field(() => Int) paymentId!: number;
  @Field(() => Int) orderId!: number;
  @Field(() => PaymentMethod) method!: PaymentMethod;
  @Field({ description: 'pending, requires_action, failed, authorized, ...' }) status!: string;
  @Field(() => Float) amount!: number;
  @Field({ description: 'ISO 4217' }) currency!: string;
  @Field({ description: 'confirm_card: confirm with the card SDK (clientSecret, publishableKey); none: nothing more to do.' })
  nextAction!: 'confirm_card' | 'none';
  @Field({ description: 'The card needs the bank (3-D Secure) through the SDK.' }) requiresAction!: boolean;
  @Field(() => String, { nullable: true }) clientSecret!: string | null;
  @Field(() => String, { nullable: true }) publishableKey!: string | null;
}

@ObjectType({ simpleResolvers: true })
export class StartPaymentPayload {
  @Field() message!: string;
  @Field(() => PaymentStartType) payment!: PaymentStartType;
}

@ObjectType('PaymentEvent', { simpleResolvers: true, description: 'One news of a payment (its history), oldest first.' })
export class PaymentEventType {
  @Field({ description: 'The payment status it reached: authorized, failed, captured, collected, released, refunded...' })
  status!: string;
  @Field(() => Float, { description: 'The amount it is about (the refunded total for refunds).' }) amount!: number;
  @Field(() => Date) at!: Date;
}

@ObjectType('OrderPayment', { simpleResolvers: true, description: "The order's latest payment attempt." })
export class OrderPaymentType {
  @Field(() => Int) id!: number;
  @Field(() => PaymentMethod) method!: PaymentMethod;
  @Field() status!: string;
  @Field(() => Float) amount!: number;
  @Field(() => Float) capturedAmount!: number;
  @Field(() => Float) refundedAmount!: number;
  @Field() currency!: string;
}
