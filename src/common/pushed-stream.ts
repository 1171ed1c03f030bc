/**
 * A stream that can also hand its values to one consumer as they come (issue 26, the fan-out):
 * an order's feed gives each event to thousands of followers, and pulling it through an async
 * iterator costs a promise and a turn of the microtask queue per follower and event. A consumer
 * that calls `pushTo` gets what is queued at once, then each value synchronously when it is
 * pushed, then `end` (with the stream's error, if it failed). `return()` still ends it, as for
 * any async iterator. graphql/shared-results.ts is the consumer; tracking/order-feed.ts a source.
 */
export interface StreamSink<T> {
  next(value: T): void;
  end(error?: Error): void;
}

export interface PushedStream<T> extends AsyncIterableIterator<T> {
  /** From now on values go to `sink`, not to `next()` (one consumer, one way). */
  pushTo(sink: StreamSink<T>): void;
}

export const isPushedStream = <T>(stream: AsyncIterator<T>): stream is PushedStream<T> =>
  typeof (stream as Partial<PushedStream<T>>).pushTo === 'function';
