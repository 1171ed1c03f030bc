import { Field, Int, ObjectType } from 'type-graphql';

/** Page size of paginated lists when the client gives none, and the most it may ask for. */
export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 50;

/** Spec §2.5. */
@ObjectType()
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
