/**
 * Subscriptions whose answer to an event is shared by every subscriber with the same selection
 * (issue 26, the fan-out). graphql-js's `subscribe` executes the selection once per event per
 * subscriber; a thousand followers of one order ran it a thousand times for the same event.
 *
 * A root subscription field marked with the SHARED_RESULT extension declares that its answer
 * to an event depends on the event and the selection below the field only: not on the caller
 * (visibility is decided when subscribing, by the field's `subscribe`), nor on the field's own
 * arguments (they choose the stream). Its streams hand the same event object to every
 * subscriber (modules/tracking/order-feed.ts), so here each event is executed once per
 * selection and the ExecutionResult is reused by every subscriber with that selection.
 * Everything else goes through graphql-js's `subscribe`.
 *
 * The selection's identity is the parsed document (websocket.ts parses each distinct text once),
 * the operation name and the variables used below the root field.
 *
 * Delivery: the stream returned is an async iterator of ExecutionResults, as graphql-ws expects.
 * The socket layer may instead ask it to `deliver` (websocket.ts, graphql-ws's `onOperation`
 * hook): each answer is then serialised once per event and selection, and each subscriber's
 * message is that text behind its own id, handed to its socket as the event comes (a source that
 * can push, `common/pushed-stream.ts`, calls in synchronously: no promise per subscriber and
 * event). graphql-ws then holds an iterator that yields nothing and ends when the stream ends, so
 * its `complete` and `error` messages, and its unsubscribe and close handling, are unchanged.
 */
import { isPushedStream, StreamSink } from '../common/pushed-stream';
import {
  createSourceEventStream,
  DocumentNode,
  execute,
  ExecutionArgs,
  ExecutionResult,
  getOperationAST,
  Kind,
  OperationTypeNode,
  subscribe,
  visit,
} from 'graphql';

/** Field extension: the answer to an event is the same for every subscriber with the same selection. */
export const SHARED_RESULT = 'sharedResult';

type Answer = ExecutionResult | Promise<ExecutionResult>;

/** Per document: its id, and per operation the variables that are used only in the root field's arguments. */
const documents = new WeakMap<DocumentNode, { id: number; streamOnly: Map<string | undefined, Set<string> | null> }>();
let documentIds = 0;

/**
 * The variables of the operation that only choose the stream (used in the root field's
 * arguments and nowhere else), or null when the operation's answers are not shared.
 */
function streamOnlyVariables(args: ExecutionArgs): { id: number; streamOnly: Set<string> } | null {
  let known = documents.get(args.document);
  if (!known) documents.set(args.document, (known = { id: ++documentIds, streamOnly: new Map() }));
  const name = args.operationName ?? undefined;
  if (!known.streamOnly.has(name)) known.streamOnly.set(name, analyse(args, name));
  const streamOnly = known.streamOnly.get(name);
  return streamOnly ? { id: known.id, streamOnly } : null;
}

function analyse(args: ExecutionArgs, name: string | undefined): Set<string> | null {
  const operation = getOperationAST(args.document, name);
  if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) return null;
  const selections = operation.selectionSet.selections;
  if (selections.length !== 1 || selections[0].kind !== Kind.FIELD || selections[0].directives?.length) return null;
  const root = selections[0];
  const field = args.schema.getSubscriptionType()?.getFields()[root.name.value];
  if (field?.extensions[SHARED_RESULT] !== true) return null;
  const inArguments = new Set<string>();
  for (const argument of root.arguments ?? []) {
    visit(argument, { Variable: (node) => void inArguments.add(node.name.value) });
  }
  // Any use elsewhere (the selection, a fragment, a directive) makes a variable part of the selection.
  const elsewhere = new Set<string>();
  const body = {
    ...operation,
    variableDefinitions: [],
    selectionSet: { ...operation.selectionSet, selections: [{ ...root, arguments: [] }] },
  };
  visit(body, { Variable: (node) => void elsewhere.add(node.name.value) });
  for (const definition of args.document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) visit(definition, { Variable: (node) => void elsewhere.add(node.name.value) });
  }
  return new Set([...inArguments].filter((v) => !elsewhere.has(v)));
}

/** The selection's identity: the document, the operation and the variables the answers depend on. */
function selectionKey(args: ExecutionArgs, known: { id: number; streamOnly: Set<string> }): string {
  const variables = Object.entries(args.variableValues ?? {})
    .filter(([name]) => !known.streamOnly.has(name))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `${known.id}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(variables)}`;
}

/**
 * An answer to one event for one selection: computed once, serialised once (per serialiser: one
 * per websocket server). Subscribers delivered to directly wait on it while it is computed.
 */
interface Shared {
  result: Answer;
  /** Set once computed. */
  value?: ExecutionResult;
  failure?: unknown;
  text?: string;
  serialisedBy?: (result: ExecutionResult) => string;
  waiting?: Delivery[];
}

/** Answers already computed, per event object and selection; gone with the event. */
const answers = new WeakMap<object, Map<string, Shared>>();

function compute(args: ExecutionArgs, event: unknown): Shared {
  const result = execute({ ...args, rootValue: event });
  if (!(result instanceof Promise)) return { result, value: result };
  const shared: Shared = { result };
  void result
    .then(
      (value) => void (shared.value = value),
      (error: unknown) => void (shared.failure = error ?? new Error('The answer failed.')),
    )
    .finally(() => {
      const waiting = shared.waiting ?? [];
      shared.waiting = undefined;
      for (const delivery of waiting) delivery.flush();
    });
  return shared;
}

function sharedOf(args: ExecutionArgs, key: string, event: unknown): Shared {
  if (event === null || typeof event !== 'object') return compute(args, event);
  let byKey = answers.get(event);
  if (!byKey) answers.set(event, (byKey = new Map<string, Shared>()));
  let shared = byKey.get(key);
  if (!shared) byKey.set(key, (shared = compute(args, event)));
  return shared;
}

function textOf(shared: Shared, serialise: (result: ExecutionResult) => string): string {
  if (shared.serialisedBy !== serialise) {
    shared.text = serialise(shared.value!);
    shared.serialisedBy = serialise;
  }
  return shared.text!;
}

const END = Symbol('end');
type Queued = Shared | { [END]: true; error?: Error };

/**
 * One subscriber's direct delivery: its answers in order, each written as soon as it and the
 * ones before it are computed. As an iterator (graphql-ws's), it yields nothing and settles when
 * the stream ends: done, or the stream's error.
 */
class Delivery implements AsyncIterableIterator<never> {
  private queue: Queued[] = [];
  private started = false;
  private closed = false;
  private ended?: { error?: Error };
  private settle?: { resolve: (r: IteratorResult<never>) => void; reject: (e: unknown) => void };
  /** What the source calls (a source that pushes, or `drain`). */
  private readonly sink: StreamSink<unknown> = {
    next: (event) => this.take(event),
    end: (error) => this.enqueue({ [END]: true, error }),
  };

  constructor(
    private readonly events: AsyncIterator<unknown>,
    private readonly answerTo: (event: unknown) => Shared,
    private readonly write: (text: string) => void,
    private readonly serialise: (result: ExecutionResult) => string,
  ) {}

  /** graphql-ws's pull: starts the delivery; settles when the stream ends. */
  next(): Promise<IteratorResult<never>> {
    if (!this.started) {
      this.started = true;
      if (isPushedStream(this.events)) this.events.pushTo(this.sink);
      else void this.drain();
    }
    if (this.ended) {
      const { error } = this.ended;
      this.ended = {};
      return error === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(error);
    }
    return new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }

  private take(event: unknown): void {
    if (this.closed || this.ended) return;
    const shared = this.answerTo(event);
    if (this.queue.length === 0 && shared.value !== undefined) this.send(shared);
    else this.enqueue(shared);
  }

  private enqueue(item: Queued): void {
    if (this.closed || this.ended) return;
    this.queue.push(item);
    if (this.queue.length === 1) this.flush();
  }

  /** Writes the queued answers that are ready, in order; waits on the first that is not. */
  flush(): void {
    while (!this.closed && this.queue.length > 0) {
      const head = this.queue[0];
      if (END in head) {
        this.queue = [];
        return this.finish(head.error);
      }
      if (head.failure !== undefined) {
        this.queue = [];
        void this.events.return?.();
        return this.finish(head.failure instanceof Error ? head.failure : new Error('The answer failed.'));
      }
      if (head.value === undefined) {
        (head.waiting ??= []).push(this);
        return;
      }
      this.queue.shift();
      this.send(head);
    }
  }

  private send(shared: Shared): void {
    try {
      this.write(textOf(shared, this.serialise));
    } catch (error) {
      // A socket that cannot be written to ends this subscriber only, never the feed's loop.
      this.queue = [];
      void this.events.return?.();
      this.finish(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private finish(error?: Error): void {
    if (this.ended) return;
    this.ended = { error };
    const settle = this.settle;
    if (!settle) return;
    this.settle = undefined;
    this.ended = {};
    if (error === undefined) settle.resolve({ value: undefined, done: true });
    else settle.reject(error);
  }

  /** A source that cannot push: pulled here, one event after the other. */
  private async drain(): Promise<void> {
    try {
      for (;;) {
        const next = await this.events.next();
        if (this.closed) return;
        if (next.done) return this.sink.end();
        this.sink.next(next.value);
      }
    } catch (error) {
      this.sink.end(error instanceof Error ? error : new Error(String(error)));
    }
  }

  async return(): Promise<IteratorResult<never>> {
    this.closed = true;
    this.queue = [];
    this.finish();
    await this.events.return?.();
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<never>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/**
 * The answers of one subscriber of a SHARED_RESULT field: pulled as ExecutionResults, or
 * delivered (`deliver`) as text straight to the subscriber's socket.
 */
export class SharedAnswers implements AsyncIterableIterator<ExecutionResult> {
  private delivering = false;

  constructor(
    private readonly args: ExecutionArgs,
    private readonly key: string,
    private readonly events: AsyncIterator<unknown>,
  ) {}

  async next(): Promise<IteratorResult<ExecutionResult>> {
    const next = await this.events.next();
    if (next.done) return { value: undefined, done: true };
    return { value: await sharedOf(this.args, this.key, next.value).result, done: false };
  }

  async return(): Promise<IteratorResult<ExecutionResult>> {
    await this.events.return?.();
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<ExecutionResult>> {
    if (this.events.throw) await this.events.throw(error);
    else await this.events.return?.();
    throw error;
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  /**
   * From now on each answer is `serialise`d once per event and selection and handed to `write`
   * in order, as the events come (nothing is written before the returned iterator's first
   * `next()`). The iterator yields nothing and ends with the stream (done, or its error); its
   * `return()` stops the stream. The events go one way: this object is not pulled any more.
   */
  deliver(write: (text: string) => void, serialise: (result: ExecutionResult) => string): AsyncIterableIterator<never> {
    if (this.delivering) throw new Error('Already delivered.');
    this.delivering = true;
    return new Delivery(this.events, (event) => sharedOf(this.args, this.key, event), write, serialise);
  }
}

/** graphql-ws's `subscribe` option: shared answers for SHARED_RESULT fields, graphql-js's `subscribe` otherwise. */
export async function subscribeShared(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const known = streamOnlyVariables(args);
  if (!known) return subscribe(args);
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  return new SharedAnswers(args, selectionKey(args, known), source[Symbol.asyncIterator]());
}
