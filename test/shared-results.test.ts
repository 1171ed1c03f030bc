/**
 * Shared answers of subscriptions (src/graphql/shared-results.ts): a field marked SHARED_RESULT
 * is executed once per event object and selection, whoever subscribed; the variables that only
 * choose the stream do not split the selection; any other field runs per subscriber.
 */
import { ExecutionResult, GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { PushedStream, StreamSink } from '../src/common/pushed-stream';
import { SHARED_RESULT, SharedAnswers, subscribeShared } from '../src/graphql/shared-results';

type Event = { seq: number };

/** A schema of two subscription fields over one shared source of event objects; counts field executions. */
function world() {
  const listeners = new Set<(event: Event) => void>();
  const runs = { seq: 0, label: 0 };
  const stream = (): AsyncIterableIterator<Event> => {
    const queue: Event[] = [];
    let wake: (() => void) | undefined;
    const listener = (event: Event) => {
      queue.push(event);
      wake?.();
    };
    listeners.add(listener);
    return {
      async next() {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        return { value: queue.shift()!, done: false };
      },
      async return() {
        listeners.delete(listener);
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  };
  const Update = new GraphQLObjectType({
    name: 'Update',
    fields: {
      seq: { type: GraphQLInt, resolve: (e: Event) => (runs.seq++, e.seq) },
      label: {
        type: GraphQLString,
        args: { prefix: { type: GraphQLString } },
        resolve: (e: Event, { prefix }: { prefix?: string }) => (runs.label++, `${prefix ?? ''}${e.seq}`),
      },
    },
  });
  const field = (shared: boolean) => ({
    type: Update,
    args: { from: { type: GraphQLInt } },
    extensions: shared ? { [SHARED_RESULT]: true } : {},
    subscribe: () => stream(),
    resolve: (e: Event) => e,
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt } } }),
    subscription: new GraphQLObjectType({ name: 'Subscription', fields: { shared: field(true), own: field(false) } }),
  });
  const publish = (event: Event) => listeners.forEach((l) => l(event));
  return { schema, runs, publish };
}

async function open(schema: GraphQLSchema, document: ReturnType<typeof parse>, variableValues: Record<string, unknown> = {}) {
  const result = await subscribeShared({ schema, document, variableValues, contextValue: {} });
  if (!(Symbol.asyncIterator in result)) throw new Error(JSON.stringify(result));
  return result;
}

const data = (r: IteratorResult<ExecutionResult>) => (r.value as ExecutionResult).data;

describe('shared subscription answers', () => {
  it('executes a shared field once per event and selection; stream-only variables do not split it', async () => {
    const { schema, runs, publish } = world();
    const text = parse('subscription($from: Int) { shared(from: $from) { seq } }');
    const other = parse('subscription($p: String) { shared { seq label(prefix: $p) } }');
    const subs = await Promise.all([
      open(schema, text, { from: 1 }),
      open(schema, text, { from: 7 }),
      open(schema, text),
      open(schema, other, { p: 'a' }),
      open(schema, other, { p: 'b' }),
    ]);
    const next = subs.map((s) => s.next());
    publish({ seq: 3 });
    const got = await Promise.all(next);
    expect(got.map(data)).toEqual([
      { shared: { seq: 3 } },
      { shared: { seq: 3 } },
      { shared: { seq: 3 } },
      { shared: { seq: 3, label: 'a3' } },
      { shared: { seq: 3, label: 'b3' } },
    ]);
    // One run for the three subscribers of the first text, one per variable of the second.
    expect(runs).toEqual({ seq: 3, label: 2 });
    expect(got[0].value).toBe(got[1].value);
    await Promise.all(subs.map((s) => s.return!()));
  });

  it('runs a field that is not marked once per subscriber', async () => {
    const { schema, runs, publish } = world();
    const text = parse('subscription { own { seq } }');
    const subs = await Promise.all([open(schema, text), open(schema, text)]);
    const next = subs.map((s) => s.next());
    publish({ seq: 1 });
    expect((await Promise.all(next)).map(data)).toEqual([{ own: { seq: 1 } }, { own: { seq: 1 } }]);
    expect(runs.seq).toBe(2);
    await Promise.all(subs.map((s) => s.return!()));
  });

  it('delivers text to each subscriber in order, computed and serialised once per event and selection', async () => {
    const { schema, runs, publish } = world();
    const text = parse('subscription { shared { seq } }');
    const subs = (await Promise.all([open(schema, text), open(schema, text)])) as SharedAnswers[];
    const written: string[][] = [[], []];
    let serialised = 0;
    const serialise = (r: ExecutionResult) => (serialised++, JSON.stringify(r));
    const deliveries = subs.map((s, k) => s.deliver((t) => written[k].push(t), serialise));
    const ends = deliveries.map((d) => d.next());
    publish({ seq: 1 });
    publish({ seq: 2 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(written).toEqual([0, 1].map(() => ['{"data":{"shared":{"seq":1}}}', '{"data":{"shared":{"seq":2}}}']));
    expect(runs.seq).toBe(2);
    expect(serialised).toBe(2);
    await Promise.all(deliveries.map((d) => d.return!()));
    expect((await Promise.all(ends)).every((r) => r.done)).toBe(true);
  });

  it('a source that pushes is called synchronously; answers computed later keep their order; the end follows them', async () => {
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt } } }),
      subscription: new GraphQLObjectType({
        name: 'Subscription',
        fields: {
          shared: {
            type: GraphQLInt,
            extensions: { [SHARED_RESULT]: true },
            subscribe: () => source,
            // The first answer takes longer than the second: delivery still follows the events.
            resolve: (e: Event) => new Promise((resolve) => setTimeout(() => resolve(e.seq), e.seq === 1 ? 20 : 0)),
          },
        },
      }),
    });
    let sink: StreamSink<Event> | undefined;
    let returned = 0;
    const source: PushedStream<Event> = {
      pushTo: (s) => (sink = s),
      next: () => Promise.reject(new Error('pulled')),
      return: () => (returned++, Promise.resolve({ value: undefined, done: true })),
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    const sub = (await open(schema, parse('subscription { shared }'))) as SharedAnswers;
    const written: string[] = [];
    const delivery = sub.deliver(
      (t) => written.push(t),
      (r) => JSON.stringify(r.data),
    );
    expect(sink).toBeUndefined(); // nothing starts before graphql-ws pulls
    const end = delivery.next();
    sink!.next({ seq: 1 });
    sink!.next({ seq: 2 });
    sink!.end();
    let done = false;
    void end.then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(written).toEqual([]);
    expect(done).toBe(false);
    await expect(end).resolves.toEqual({ value: undefined, done: true });
    expect(written).toEqual(['{"shared":1}', '{"shared":2}']);
    expect(returned).toBe(0);
  });

  it("ends with the stream's error after what came before it; a write that throws ends that subscriber only", async () => {
    const sinks: StreamSink<Event>[] = [];
    const pushing = (): PushedStream<Event> => ({
      pushTo: (s) => void sinks.push(s),
      next: () => Promise.reject(new Error('pulled')),
      return: () => Promise.resolve({ value: undefined, done: true }),
      [Symbol.asyncIterator]() {
        return this;
      },
    });
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt } } }),
      subscription: new GraphQLObjectType({
        name: 'Subscription',
        fields: { shared: { type: GraphQLInt, extensions: { [SHARED_RESULT]: true }, subscribe: pushing, resolve: (e: Event) => e.seq } },
      }),
    });
    const text = parse('subscription { shared }');
    const [good, broken] = (await Promise.all([open(schema, text), open(schema, text)])) as SharedAnswers[];
    const written: string[] = [];
    const goodEnd = good
      .deliver(
        (t) => written.push(t),
        (r) => JSON.stringify(r.data),
      )
      .next();
    const brokenEnd = broken
      .deliver(
        () => {
          throw new Error('socket gone');
        },
        (r) => JSON.stringify(r.data),
      )
      .next();
    const event = { seq: 1 };
    for (const sink of sinks) sink.next(event);
    await expect(brokenEnd).rejects.toThrow('socket gone');
    sinks[0].end(new Error('feed failed'));
    await expect(goodEnd).rejects.toThrow('feed failed');
    expect(written).toEqual(['{"shared":1}']);
  });
});
