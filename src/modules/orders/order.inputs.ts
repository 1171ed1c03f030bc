import { Field, InputType } from 'type-graphql';
import { IsIn, IsOptional, MaxLength } from 'class-validator';
import { REJECTION_REASONS } from './order-status';

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
