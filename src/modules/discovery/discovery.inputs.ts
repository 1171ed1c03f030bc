import { ArgsType, Field, Float, Int } from 'type-graphql';
import { IsIn, IsOptional, Matches, Max, MaxLength, Min } from 'class-validator';
import { LatitudeInput, LongitudeInput } from '../../common/input-fields';
import { PageArgs } from '../../common/pagination';
import { MAX_DELIVERY_RADIUS_KM } from '../../common/geo';
import { STORE_SORTS, StoreSort } from '../stores/store-query';

@ArgsType()
export class OptionalPointArgs {
  @LatitudeInput()
  lat?: number;

  @LongitudeInput()
  lng?: number;
}

/** Spec §4.3 nearby stores, plus the page parameters (docs/decisions.md). */
@ArgsType()
export class NearbyStoresArgs extends PageArgs {
  @LatitudeInput({ required: true })
  lat!: number;

  @LongitudeInput({ required: true })
  lng!: number;

  @Field(() => Int, { nullable: true, description: `Kilometres, 1 to ${MAX_DELIVERY_RADIUS_KM}.` })
  @IsOptional()
  @Min(1)
  @Max(MAX_DELIVERY_RADIUS_KM)
  radius?: number;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @Min(0)
  @Max(5)
  minRating?: number;

  @Field(() => Boolean, { nullable: true })
  freeDelivery?: boolean;

  @Field(() => Boolean, { nullable: true })
  isOpen?: boolean;

  @Field(() => Boolean, { nullable: true })
  hasOffer?: boolean;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(1)
  categoryId?: number;

  @Field(() => String, { nullable: true, description: STORE_SORTS.join(', ') })
  @IsOptional()
  @IsIn(STORE_SORTS, { message: `sort must be one of: ${STORE_SORTS.join(', ')}` })
  sort?: StoreSort;
}

@ArgsType()
export class SearchArgs {
  @Field()
  @Matches(/\S/, { message: 'q is required' })
  @MaxLength(100)
  q!: string;
}
