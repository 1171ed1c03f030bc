/**
 * The service's "now" for rules computed in Node (a store's opening hours). Production uses
 * the system clock; tests inject a fixed one (createApp's `clock` option) to check a rule at
 * 08:11 on a Monday in Casablanca or across a DST change, whatever the day they run.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
