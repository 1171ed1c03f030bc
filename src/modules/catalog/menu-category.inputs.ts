import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { PageArgs } from '../../common/pagination';
import { IsOptional, Min } from 'class-validator';
import { IntInput, TextInput } from '../../common/input-fields';

@InputType()
export class CreateMenuCategoryInput {
  @TextInput(150, { required: true, notBlank: true })
  name!: string;

  @IntInput(1, { description: 'The menu to place it in; its store is the menu’s.' })
  menuId?: number | null;

  @IntInput(1, { description: 'Required when no menuId is given.' })
  storeId?: number | null;

  @IntInput(0)
  sortOrder?: number;
}

/** Partial update; `menuId: null` takes the category out of its menu. The store never changes. */
@InputType()
export class UpdateMenuCategoryInput {
  @TextInput(150, { notBlank: true })
  name?: string;

  @IntInput(1)
  menuId?: number | null;

  @IntInput(0)
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
