import { Field, Float, InputType } from 'type-graphql';
import { IsOptional, Matches, Max, MaxLength, Min } from 'class-validator';

@InputType()
export class AddressInput {
  @Field()
  @Matches(/\S/, { message: 'label must not be blank' })
  @MaxLength(50)
  label!: string;

  @Field()
  @Matches(/\S/, { message: 'line1 must not be blank' })
  @MaxLength(255)
  line1!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(255)
  line2?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(100)
  city?: string | null;

  @Field(() => Float)
  @Min(-90)
  @Max(90)
  latitude!: number;

  @Field(() => Float)
  @Min(-180)
  @Max(180)
  longitude!: number;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(500)
  instructions?: string | null;
}

/** Partial update of a saved address. */
@InputType()
export class UpdateAddressInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(/\S/, { message: 'label must not be blank' })
  @MaxLength(50)
  label?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(/\S/, { message: 'line1 must not be blank' })
  @MaxLength(255)
  line1?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(255)
  line2?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(100)
  city?: string | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @Min(-90)
  @Max(90)
  latitude?: number;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @Min(-180)
  @Max(180)
  longitude?: number;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(500)
  instructions?: string | null;
}
