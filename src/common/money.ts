/**
 * Money is integer minor units (cents) in the database and a number with 2 decimals in the
 * API, in the platform's single currency (docs/decisions.md).
 */
export const toAmount = (cents: number): number => Math.round(cents) / 100;
export const toCents = (amount: number): number => Math.round(amount * 100);
