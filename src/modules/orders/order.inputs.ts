import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { IsIn, IsOptional, MaxLength, Min } from 'class-validator';
import { PageArgs } from '../../common/pagination';
import { ORDER_STATUSES, REJECTION_REASONS } from './order-status';

@InputType()
export class RejectOrderInput {
  @Field({ description: REJECTION_REASONS.join(', ') })
  @IsIn(REJECTION_REASONS, { message: `rejectionReason must be one of: ${REJECTION_REASONS.join(', ')}` })
  rejectionReason!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(500, { message: 'rejectionNote may be at most 500 characters' })
  rejectionNote?: string | null;
}

/** The store's order list: one store or all the caller's, one status or all, page by page. */
@ArgsType()
export class StoreOrderListArgs extends PageArgs {
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @Min(1)
  storeId?: number | null;

  @Field(() => String, { nullable: true, description: `One of ${ORDER_STATUSES.join(', ')}.` })
  @IsOptional()
  @IsIn(ORDER_STATUSES, { message: `status must be one of ${ORDER_STATUSES.join(', ')}` })
  status?: string | null;
}
