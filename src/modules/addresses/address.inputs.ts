import { InputType } from 'type-graphql';
import { LatitudeInput, LongitudeInput, TextInput } from '../../common/input-fields';

@InputType()
export class AddressInput {
  @TextInput(50, { required: true, notBlank: true })
  label!: string;

  @TextInput(255, { required: true, notBlank: true })
  line1!: string;

  @TextInput(255)
  line2?: string | null;

  @TextInput(100)
  city?: string | null;

  @LatitudeInput({ required: true })
  latitude!: number;

  @LongitudeInput({ required: true })
  longitude!: number;

  @TextInput(500)
  instructions?: string | null;
}

/** Partial update of a saved address: the same rules, every field optional. */
@InputType()
export class UpdateAddressInput {
  @TextInput(50, { notBlank: true })
  label?: string;

  @TextInput(255, { notBlank: true })
  line1?: string;

  @TextInput(255)
  line2?: string | null;

  @TextInput(100)
  city?: string | null;

  @LatitudeInput()
  latitude?: number;

  @LongitudeInput()
  longitude?: number;

  @TextInput(500)
  instructions?: string | null;
}
