import { Field, Float, InputType } from 'type-graphql';
import { IsOptional, Max, Min } from 'class-validator';
import { IntInput, TextInput, UrlInput } from '../../common/input-fields';

/** Spec §2.11. `discount` is a percentage: more than 0, at most 100. */
function DiscountInput({ required = false } = {}): PropertyDecorator {
  return (target, key) => {
    Max(100, { message: 'discount must be a percentage of at most 100' })(target, key);
    Min(0.01, { message: 'discount must be a percentage greater than 0' })(target, key);
    if (!required) IsOptional()(target, key);
    Field(() => Float, { nullable: !required })(target, key);
  };
}

/** What create and update share, with the same rules (all optional). */
@InputType()
abstract class OfferFields {
  @TextInput(2000)
  description?: string | null;

  @Field(() => Date, { nullable: true })
  startsAt?: Date | null;

  @Field(() => Date, { nullable: true })
  endsAt?: Date | null;

  @UrlInput()
  image?: string | null;
}

@InputType()
export class CreateOfferInput extends OfferFields {
  @IntInput(1, { description: 'Required when the caller owns more than one store.' })
  storeId?: number | null;

  @TextInput(150, { required: true, notBlank: true })
  title!: string;

  @DiscountInput({ required: true })
  discount!: number;
}

/** Partial update; the store of an offer never changes. */
@InputType()
export class UpdateOfferInput extends OfferFields {
  @TextInput(150, { notBlank: true })
  title?: string;

  @DiscountInput()
  discount?: number;
}
