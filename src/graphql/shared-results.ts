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
 * selection and the ExecutionResult is reused by every subscriber with that selection; graphql-ws
 * then writes it to each socket. Everything else goes through graphql-js's `subscribe`.
 *
 * The selection's identity is the parsed document (websocket.ts parses each distinct text once),
 * the operation name and the variables used below the root field.
 */
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

/** Answers already computed, per event object and selection; gone with the event. */
const answers = new WeakMap<object, Map<string, Answer>>();

function answerOf(args: ExecutionArgs, key: string, event: unknown): Answer {
  if (event === null || typeof event !== 'object') return execute({ ...args, rootValue: event });
  let byKey = answers.get(event);
  if (!byKey) answers.set(event, (byKey = new Map<string, Answer>()));
  let answer = byKey.get(key);
  if (!answer) {
    answer = execute({ ...args, rootValue: event });
    byKey.set(key, answer);
  }
  return answer;
}

/** graphql-ws's `subscribe` option: shared answers for SHARED_RESULT fields, graphql-js's `subscribe` otherwise. */
export async function subscribeShared(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const known = streamOnlyVariables(args);
  if (!known) return subscribe(args);
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  const key = selectionKey(args, known);
  const events = source[Symbol.asyncIterator]();
  const answers: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const next = await events.next();
      return next.done ? { value: undefined, done: true } : { value: await answerOf(args, key, next.value), done: false };
    },
    async return() {
      await events.return?.();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      if (events.throw) await events.throw(error);
      else await events.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return answers;
}
