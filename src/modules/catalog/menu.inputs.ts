import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { PageArgs } from '../../common/pagination';
import { IsOptional, Min } from 'class-validator';
import { IntInput, TextInput } from '../../common/input-fields';

/** What create and update share, with the same rules (all optional). */
@InputType()
abstract class MenuFields {
  @TextInput(2000)
  description?: string | null;

  @Field(() => Boolean, { nullable: true })
  isActive?: boolean;

  @IntInput(0)
  sortOrder?: number;
}

@InputType()
export class CreateMenuInput extends MenuFields {
  @IntInput(1, { required: true })
  storeId!: number;

  @TextInput(150, { required: true, notBlank: true })
  name!: string;
}

/** Partial update; `storeId` is required by the spec and must be the menu's own store. */
@InputType()
export class UpdateMenuInput extends MenuFields {
  @IntInput(1, { required: true })
  storeId!: number;

  @TextInput(150, { notBlank: true })
  name?: string;
}

/** Menus list: of one store, or without it all active ones (a signed-in owner: their own). */
@ArgsType()
export class MenuListArgs extends PageArgs {
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(1)
  storeId?: number | null;
}
