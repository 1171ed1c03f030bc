/**
 * One decorator per input rule, so that a create input and its partial update state each rule
 * once: `@TextInput(150, { required: true, notBlank: true }) name!: string` in the one,
 * `@TextInput(150, { notBlank: true }) name?: string` in the other. Optional fields are
 * nullable in the schema and skipped by validation when absent.
 */
import { Field, Float, Int } from 'type-graphql';
import { IsOptional, IsUrl, Max, MaxLength, Min } from 'class-validator';
import { VisibleName } from './visible-text';

interface Presence {
  /** Non-null in the schema and always validated (a create input's required field). */
  required?: boolean;
  description?: string;
}

/** Applies decorators as if written one above the other in this order. */
function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const decorator of [...decorators].reverse()) decorator(target, key);
  };
}

const presence = (type: () => unknown, { required = false, description }: Presence): PropertyDecorator[] =>
  required ? [Field(type as never, { description })] : [Field(type as never, { nullable: true, description }), IsOptional()];

/**
 * Text of at most `max` characters; `notBlank` makes it a name: refused when nothing visible
 * remains (`name must not be blank`) or when it carries bidi overrides (common/visible-text.ts).
 */
export function TextInput(max: number, options: Presence & { notBlank?: boolean } = {}): PropertyDecorator {
  return (target, key) =>
    stacked(...presence(() => String, options), ...(options.notBlank ? [VisibleName()] : []), MaxLength(max))(target, key);
}

/** An http(s) URL of at most 500 characters (images). */
export function UrlInput(options: Presence = {}): PropertyDecorator {
  return stacked(...presence(() => String, options), IsUrl({ protocols: ['https', 'http'], require_protocol: true }), MaxLength(500));
}

/** A whole number of at least `min` (ids: 1, sort orders: 0). */
export function IntInput(min: number, options: Presence = {}): PropertyDecorator {
  return stacked(...presence(() => Int, options), Min(min));
}

/** The one latitude rule: degrees from -90 to 90. */
export function LatitudeInput(options: Presence = {}): PropertyDecorator {
  return stacked(...presence(() => Float, options), Min(-90), Max(90));
}

/** The one longitude rule: degrees from -180 to 180. */
export function LongitudeInput(options: Presence = {}): PropertyDecorator {
  return stacked(...presence(() => Float, options), Min(-180), Max(180));
}
