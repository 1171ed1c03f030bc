import { ArgsType, Field, Int, ObjectType } from 'type-graphql';
import { IsInt, Max, Min } from 'class-validator';

/** Page size of paginated lists when the client gives none, and the most it may ask for. */
export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 50;

/** Spec §2.5. */
@ObjectType({ simpleResolvers: true })
export class PageMeta {
  @Field(() => Int)
  total!: number;

  @Field(() => Int)
  perPage!: number;

  @Field(() => Int)
  currentPage!: number;

  @Field(() => Int)
  lastPage!: number;
}

export function pageMeta(total: number, page: number, perPage: number): PageMeta {
  return { total, perPage, currentPage: page, lastPage: Math.max(1, Math.ceil(total / perPage)) };
}

/** `page` (from 1) and `per_page` (docs/decisions.md "Pagination"), for every paginated list. */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, defaultValue: 1 })
  @IsInt()
  @Min(1)
  page!: number;

  @Field(() => Int, { nullable: true, defaultValue: DEFAULT_PER_PAGE })
  @IsInt()
  @Min(1)
  @Max(MAX_PER_PAGE)
  perPage!: number;
}

/** The rows a page holds: `limit`/`offset` for a query. */
export const pageWindow = (args: { page: number; perPage: number }) => ({ limit: args.perPage, offset: (args.page - 1) * args.perPage });
