import { InputType } from 'type-graphql';
import { LatitudeInput, LongitudeInput } from '../../common/input-fields';

@InputType()
export class PositionInput {
  @LatitudeInput({ required: true })
  latitude!: number;

  @LongitudeInput({ required: true })
  longitude!: number;
}
