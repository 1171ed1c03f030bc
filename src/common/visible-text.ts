/**
 * Names people read (a user's first and last name, menu, category and offer titles, address
 * labels, store names): something must remain once the characters that show nothing are
 * removed, and no bidirectional embedding, override or isolate may reorder what a reader sees
 * (docs/decisions.md "Text that is not what it shows").
 */
import { ValidateBy, ValidationArguments } from 'class-validator';

/** White space and the default-ignorable characters: zero-width, joiners, bidi controls, fillers, variation selectors. */
const INVISIBLE = /[\p{White_Space}\p{Default_Ignorable_Code_Point}]/gu;

/** Embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069). Marks (LRM, RLM, ALM) stay allowed. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

/** What is wrong with a name, as a message naming `field`; undefined when it is fine. */
export function nameProblem(field: string, value: string): string | undefined {
  if (value.replace(INVISIBLE, '') === '') return `${field} must not be blank`;
  if (BIDI_CONTROLS.test(value)) return `${field} must not contain bidirectional control characters`;
  return undefined;
}

/** The class-validator rule of nameProblem (strings only; other types have their own rules). */
export function VisibleName(): PropertyDecorator {
  return ValidateBy({
    name: 'visibleName',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => typeof value !== 'string' || !nameProblem(args!.property, value),
      defaultMessage: (args?: ValidationArguments) => nameProblem(args!.property, String(args!.value)) ?? '',
    },
  });
}
