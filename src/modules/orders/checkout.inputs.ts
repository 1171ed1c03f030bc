import { Field, InputType, Int } from 'type-graphql';
import { ArrayMaxSize, ArrayNotEmpty, IsInt, IsOptional, Max, MaxLength, Min, ValidateNested } from 'class-validator';

/** Most items (lines) one order may hold, and most of one product (spec §8 "not shown"). */
export const MAX_ITEMS_PER_ORDER = 50;
export const MAX_QUANTITY = 99;

@InputType()
export class CheckoutItemInput {
  @Field(() => Int)
  @Min(1)
  productId!: number;

  @Field(() => Int)
  @Min(1, { message: 'quantity must be at least 1' })
  @Max(MAX_QUANTITY, { message: `quantity must be at most ${MAX_QUANTITY}` })
  quantity!: number;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(500)
  specialInstructions?: string | null;

  @Field(() => [Int], { nullable: true, description: 'ProductOptionValue ids.' })
  @IsOptional()
  @ArrayMaxSize(20)
  @IsInt({ each: true })
  options?: number[] | null;

  @Field(() => [Int], { nullable: true, description: 'ProductSupplement ids.' })
  @IsOptional()
  @ArrayMaxSize(20)
  @IsInt({ each: true })
  supplements?: number[] | null;
}

/** Spec §4.3 create order. Prices are never taken from the client. */
@InputType()
export class CheckoutInput {
  @Field(() => Int)
  @Min(1)
  storeId!: number;

  @Field(() => Int)
  @Min(1)
  addressId!: number;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(50)
  codePromo?: string | null;

  @Field(() => [CheckoutItemInput])
  @ArrayNotEmpty({ message: 'items must contain at least one item' })
  @ArrayMaxSize(MAX_ITEMS_PER_ORDER, { message: `items may hold at most ${MAX_ITEMS_PER_ORDER} lines` })
  @ValidateNested()
  items!: CheckoutItemInput[];
}
