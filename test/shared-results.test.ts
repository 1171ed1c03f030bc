/**
 * Shared answers of subscriptions (src/graphql/shared-results.ts): a field marked SHARED_RESULT
 * is executed once per event object and selection, whoever subscribed; the variables that only
 * choose the stream do not split the selection; any other field runs per subscriber.
 */
import { ExecutionResult, GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { SHARED_RESULT, subscribeShared } from '../src/graphql/shared-results';

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
});
