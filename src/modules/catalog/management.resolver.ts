/** Store owners' menus and menu categories (spec §4.2), for the dashboard and the REST rows. */
import { Arg, Args, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { MessagePayload } from '../../common/message-payload';
import { Context } from '../../context';
import { MenuCategoryPage, MenuPage } from './catalog.types';
import { CreateMenuCategoryInput, MenuCategoryListArgs, UpdateMenuCategoryInput } from './menu-category.inputs';
import * as categories from './menu-category.service';
import { MenuCategory } from './menu-category.entity';
import { CreateMenuInput, MenuListArgs, UpdateMenuInput } from './menu.inputs';
import * as menus from './menu.service';
import { Menu } from './menu.entity';

@ObjectType({ simpleResolvers: true })
export class MenuPayload {
  @Field()
  message!: string;

  @Field(() => Menu)
  menu!: Menu;
}

@ObjectType({ simpleResolvers: true })
export class MenuCategoryPayload {
  @Field()
  message!: string;

  @Field(() => MenuCategory)
  category!: MenuCategory;
}

@Resolver()
export class MenuManagementResolver {
  @Query(() => MenuPage, {
    description:
      "A page of menus: a store's (all of them for its owner); without storeId the caller's own, or for anyone else the active menus of active stores.",
  })
  async menus(@Args() args: MenuListArgs, @Ctx() ctx: Context): Promise<MenuPage> {
    return menus.listMenus(ctx, args);
  }

  @Query(() => Menu)
  async menu(@Arg('id', () => Int) id: number, @Ctx() ctx: Context): Promise<Menu> {
    return menus.getMenu(ctx, id);
  }

  @Authorized()
  @Mutation(() => MenuPayload)
  async createMenu(@Arg('input') input: CreateMenuInput, @Ctx() ctx: Context): Promise<MenuPayload> {
    return { message: 'Menu created.', menu: await menus.createMenu(ctx, input) };
  }

  @Authorized()
  @Mutation(() => MenuPayload)
  async updateMenu(@Arg('id', () => Int) id: number, @Arg('input') input: UpdateMenuInput, @Ctx() ctx: Context): Promise<MenuPayload> {
    return { message: 'Menu updated.', menu: await menus.updateMenu(ctx, id, input) };
  }

  @Authorized()
  @Mutation(() => MessagePayload)
  async deleteMenu(@Arg('id', () => Int) id: number, @Ctx() ctx: Context): Promise<MessagePayload> {
    await menus.deleteMenu(ctx, id);
    return { message: 'Menu deleted.' };
  }

  @Query(() => MenuCategoryPage, {
    description:
      "A page of a menu's or a store's categories; without either the caller's own, or for anyone else those in active menus of active stores.",
  })
  async menuCategories(@Args() args: MenuCategoryListArgs, @Ctx() ctx: Context): Promise<MenuCategoryPage> {
    return categories.listMenuCategories(ctx, args);
  }

  @Query(() => MenuCategory)
  async menuCategory(@Arg('id', () => Int) id: number, @Ctx() ctx: Context): Promise<MenuCategory> {
    return categories.getMenuCategory(ctx, id);
  }

  @Authorized()
  @Query(() => [MenuCategory], { description: "The caller's categories, of one of their stores or all." })
  async ownedMenuCategories(
    @Arg('storeId', () => Int, { nullable: true }) storeId: number | null,
    @Ctx() ctx: Context,
  ): Promise<MenuCategory[]> {
    return categories.ownedMenuCategories(ctx, storeId);
  }

  @Authorized()
  @Query(() => MenuCategory, { description: 'One of the caller’s categories (403 when not theirs).' })
  async ownedMenuCategory(@Arg('id', () => Int) id: number, @Ctx() ctx: Context): Promise<MenuCategory> {
    return categories.ownedMenuCategory(ctx, id);
  }

  @Authorized()
  @Mutation(() => MenuCategoryPayload)
  async createMenuCategory(@Arg('input') input: CreateMenuCategoryInput, @Ctx() ctx: Context): Promise<MenuCategoryPayload> {
    return { message: 'Category created.', category: await categories.createMenuCategory(ctx, input) };
  }

  @Authorized()
  @Mutation(() => MenuCategoryPayload)
  async updateMenuCategory(
    @Arg('id', () => Int) id: number,
    @Arg('input') input: UpdateMenuCategoryInput,
    @Ctx() ctx: Context,
  ): Promise<MenuCategoryPayload> {
    return { message: 'Category updated.', category: await categories.updateMenuCategory(ctx, id, input) };
  }

  @Authorized()
  @Mutation(() => MessagePayload)
  async deleteMenuCategory(@Arg('id', () => Int) id: number, @Ctx() ctx: Context): Promise<MessagePayload> {
    await categories.deleteMenuCategory(ctx, id);
    return { message: 'Category deleted.' };
  }
}
