import { parsePhoneNumberFromString, CountryCode } from 'libphonenumber-js/max';

/**
 * E.164 form of a phone number, or undefined when it is not a valid number. Without a
 * leading `+` the number is read in `defaultCountry` (when configured). Numbers in
 * `alsoAccept` (configured test numbers such as +1 555 ranges) pass even though no real
 * numbering plan holds them.
 */
export function normalizePhone(input: string, defaultCountry?: string, alsoAccept?: { has(e164: string): boolean }): string | undefined {
  const parsed = parsePhoneNumberFromString(input.trim(), defaultCountry as CountryCode | undefined);
  if (!parsed) return undefined;
  return parsed.isValid() || alsoAccept?.has(parsed.number) ? parsed.number : undefined;
}
