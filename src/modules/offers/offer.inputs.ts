import { Field, Float, InputType, Int } from 'type-graphql';
import { IsOptional, IsUrl, Matches, Max, MaxLength, Min } from 'class-validator';

const NOT_BLANK = /\S/;

/** Spec §2.11. `discount` is a percentage: more than 0, at most 100. */
@InputType()
export class CreateOfferInput {
  @Field(() => Int, { nullable: true, description: 'Required when the caller owns more than one store.' })
  @IsOptional()
  @Min(1)
  storeId?: number | null;

  @Field()
  @Matches(NOT_BLANK, { message: 'title must not be blank' })
  @MaxLength(150)
  title!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(2000)
  description?: string | null;

  @Field(() => Float)
  @Min(0.01, { message: 'discount must be a percentage greater than 0' })
  @Max(100, { message: 'discount must be a percentage of at most 100' })
  discount!: number;

  @Field(() => Date, { nullable: true })
  startsAt?: Date | null;

  @Field(() => Date, { nullable: true })
  endsAt?: Date | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsUrl({ protocols: ['https', 'http'], require_protocol: true })
  @MaxLength(500)
  image?: string | null;
}

/** Partial update; the store of an offer never changes. */
@InputType()
export class UpdateOfferInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(NOT_BLANK, { message: 'title must not be blank' })
  @MaxLength(150)
  title?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(2000)
  description?: string | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @Min(0.01, { message: 'discount must be a percentage greater than 0' })
  @Max(100, { message: 'discount must be a percentage of at most 100' })
  discount?: number;

  @Field(() => Date, { nullable: true })
  startsAt?: Date | null;

  @Field(() => Date, { nullable: true })
  endsAt?: Date | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsUrl({ protocols: ['https', 'http'], require_protocol: true })
  @MaxLength(500)
  image?: string | null;
}
