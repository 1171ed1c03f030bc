import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { PageArgs } from '../../common/pagination';
import { IsOptional, Matches, MaxLength, Min } from 'class-validator';

@InputType()
export class CreateMenuCategoryInput {
  @Field()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(150)
  name!: string;

  @Field(() => Int, { nullable: true, description: 'The menu to place it in; its store is the menu’s.' })
  @IsOptional()
  @Min(1)
  menuId?: number | null;

  @Field(() => Int, { nullable: true, description: 'Required when no menuId is given.' })
  @IsOptional()
  @Min(1)
  storeId?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(0)
  sortOrder?: number;
}

/** Partial update; `menuId: null` takes the category out of its menu. The store never changes. */
@InputType()
export class UpdateMenuCategoryInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(150)
  name?: string;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(1)
  menuId?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(0)
  sortOrder?: number;
}

/** Menu categories list: of a menu, of a store, or without either all visible ones (an owner: their own). */
@ArgsType()
export class MenuCategoryListArgs extends PageArgs {
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(1)
  storeId?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(1)
  menuId?: number | null;
}
