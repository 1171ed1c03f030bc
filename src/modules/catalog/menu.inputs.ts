import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { PageArgs } from '../../common/pagination';
import { IsOptional, Matches, MaxLength, Min } from 'class-validator';

const NOT_BLANK = /\S/;

@InputType()
export class CreateMenuInput {
  @Field(() => Int)
  @Min(1)
  storeId!: number;

  @Field()
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  @MaxLength(150)
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(2000)
  description?: string | null;

  @Field(() => Boolean, { nullable: true })
  isActive?: boolean;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(0)
  sortOrder?: number;
}

/** Partial update; `storeId` is required by the spec and must be the menu's own store. */
@InputType()
export class UpdateMenuInput {
  @Field(() => Int)
  @Min(1)
  storeId!: number;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  @MaxLength(150)
  name?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(2000)
  description?: string | null;

  @Field(() => Boolean, { nullable: true })
  isActive?: boolean;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(0)
  sortOrder?: number;
}

/** Menus list: of one store, or without it all active ones (a signed-in owner: their own). */
@ArgsType()
export class MenuListArgs extends PageArgs {
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(1)
  storeId?: number | null;
}
