import { Field, Float, InputType } from 'type-graphql';
import { Max, Min } from 'class-validator';

@InputType()
export class PositionInput {
  @Field(() => Float)
  @Min(-90)
  @Max(90)
  latitude!: number;

  @Field(() => Float)
  @Min(-180)
  @Max(180)
  longitude!: number;
}
