/**
 * Limits that protect the schema, refused before anything executes. The same rules run on
 * /graphql (Apollo validation rules and parse options), on the websocket (onSubscribe: graphql-ws
 * runs no Apollo plugins) and on every REST row (checked once when the route table compiles,
 * since a row's document never changes).
 *
 * Depth is our own rule (QUERY_TOO_DEEP, unchanged). Aliases, directives and the cost budget
 * come from graphql-armor's rules; root fields are counted here; tokens are graphql-js's own
 * parser limit; the depth of input values is read with graphql-js's lexer before parsing
 * (inputDepthError). Every refusal but depth carries the code QUERY_TOO_COMPLEX and names its limit.
 */
import {
  ASTVisitor,
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLError,
  Kind,
  Lexer,
  parse,
  Source,
  TokenKind,
  SelectionSetNode,
  ValidationContext,
  ValidationRule,
} from 'graphql';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';

export const MAX_QUERY_DEPTH = 12;

/**
 * Measured on the route table (the largest row, the homepage: 181 tokens, 44 aliases, cost 538)
 * with room for dashboard queries; a flood of 1,500 aliased fields is ~18,000 tokens.
 */
export const LIMITS = {
  tokens: 2000,
  aliases: 60,
  rootFields: 10,
  directives: 20,
  cost: 3000,
  /** List and object literals (and list types) nested in an argument or variable list; checkout needs 4. */
  inputDepth: 16,
} as const;

export type LimitName = keyof typeof LIMITS;

/**
 * Variable coercion stops after this many errors (graphql-js's default is 50), and a GraphQL
 * message is cut to MAX_MESSAGE_LENGTH (errors.ts): each such error echoes the whole value, so a
 * 100 kB input of unknown keys was answered with 4 MB and ~0.4 s of CPU, before any sign-in check.
 */
export const MAX_COERCION_ERRORS = 3;
export const MAX_MESSAGE_LENGTH = 1000;

export const TOO_COMPLEX = 'QUERY_TOO_COMPLEX';

const tooComplex = (limit: LimitName, message: string) => new GraphQLError(message, { extensions: { code: TOO_COMPLEX, limit } });

/** Armor's rules report "Syntax Error: <limit> exceeded, found N."; we report it under our code. */
const armor = (limit: LimitName) => ({
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(tooComplex(limit, error.message.replace(/^Syntax Error: /, ''))),
  ],
});

/** Root fields of each operation, counting those reached through fragments. */
export function rootFieldLimit(max: number = LIMITS.rootFields): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const count = (selectionSet: SelectionSetNode, seen: Set<string>): number => {
      let fields = 0;
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) fields += selection.name.value === '__typename' ? 0 : 1;
        else if (selection.kind === Kind.INLINE_FRAGMENT) fields += count(selection.selectionSet, seen);
        else if (!seen.has(selection.name.value)) {
          const fragment = context.getFragment(selection.name.value);
          if (fragment) fields += count(fragment.selectionSet, new Set([...seen, selection.name.value]));
        }
      }
      return fields;
    };
    return {
      OperationDefinition(operation) {
        const fields = count(operation.selectionSet, new Set());
        if (fields > max) context.reportError(tooComplex('rootFields', `Root fields limit of ${max} exceeded, found ${fields}.`));
      },
    };
  };
}

export function depthLimit(maxDepth = MAX_QUERY_DEPTH): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const depthOf = (selectionSet: SelectionSetNode | undefined, seen: Set<string>): number => {
      if (!selectionSet) return 0;
      let deepest = 0;
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          deepest = Math.max(deepest, selection.selectionSet ? 1 + depthOf(selection.selectionSet, seen) : 0);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, depthOf(selection.selectionSet, seen));
        } else {
          const name = selection.name.value;
          if (seen.has(name)) continue; // cycles are reported by NoFragmentCycles
          deepest = Math.max(deepest, depthOf(fragments.get(name)?.selectionSet, new Set([...seen, name])));
        }
      }
      return deepest;
    };
    return {
      OperationDefinition(operation) {
        const depth = depthOf(operation.selectionSet, new Set());
        if (depth > maxDepth) {
          context.reportError(
            new GraphQLError(`The query is ${depth} levels deep; at most ${maxDepth} are allowed.`, {
              nodes: [operation],
              extensions: { code: 'QUERY_TOO_DEEP' },
            }),
          );
        }
      },
    };
  };
}

/** The validation rules added to graphql's own, everywhere a document is validated. */
export const limitRules: ValidationRule[] = [
  depthLimit(),
  rootFieldLimit(),
  maxAliasesRule({ n: LIMITS.aliases, ...armor('aliases') }),
  maxDirectivesRule({ n: LIMITS.directives, ...armor('directives') }),
  costLimitRule({ maxCost: LIMITS.cost, ...armor('cost') }),
];

/** graphql-js stops lexing past this many tokens, so a huge document costs almost nothing. */
export const parseOptions = { maxTokens: LIMITS.tokens };

/**
 * The depth of input values, read with graphql-js's lexer before the document is parsed: the
 * parser recurses once per nested `[` or `{`, and a 10,000-deep `[[[…]]]` overflowed the stack
 * ("Maximum call stack size exceeded") before the token limit's count was reached. Brackets
 * count from the innermost open `(` (arguments, variable definitions and their defaults, where
 * every input value lives); selection sets are the depth rule's. Stops at the token limit or a
 * syntax error: the parser reports those.
 */
export function inputDepthError(source: string, max: number = LIMITS.inputDepth): GraphQLError | undefined {
  const lexer = new Lexer(new Source(source));
  // Per open bracket, the input depth inside it; -1 outside any argument list.
  const open: number[] = [];
  try {
    for (let tokens = 0; tokens <= LIMITS.tokens; tokens++) {
      const { kind } = lexer.advance();
      if (kind === TokenKind.EOF) return undefined;
      if (kind === TokenKind.PAREN_L) open.push(0);
      else if (kind === TokenKind.BRACKET_L || kind === TokenKind.BRACE_L) {
        const outer = open.length > 0 ? open[open.length - 1] : -1;
        const depth = outer < 0 ? -1 : outer + 1;
        if (depth > max) return tooComplex('inputDepth', `Input value depth limit of ${max} exceeded.`);
        open.push(depth);
      } else if (kind === TokenKind.PAREN_R || kind === TokenKind.BRACKET_R || kind === TokenKind.BRACE_R) open.pop();
    }
  } catch {
    return undefined; // a syntax error: parse reports it
  }
  return undefined;
}

/** graphql-js's words for its token limit (Apollo reports it as a plain parse failure). */
const TOKEN_LIMIT = /^Syntax Error: Document contains more tha[nt] (\d+) tokens\./;

/** A syntax error that is the token limit becomes QUERY_TOO_COMPLEX; others stay as they are. */
export function tokenLimitError(error: GraphQLError): GraphQLError | undefined {
  const match = TOKEN_LIMIT.exec(error.message);
  return match ? tooComplex('tokens', `Token limit of ${match[1]} exceeded.`) : undefined;
}

/** `parse` under the input depth and token limits, for callers outside Apollo (the websocket, the REST table). */
export function parseLimited(source: string): DocumentNode {
  const tooDeep = inputDepthError(source);
  if (tooDeep) throw tooDeep;
  try {
    return parse(source, parseOptions);
  } catch (error) {
    throw (error instanceof GraphQLError && tokenLimitError(error)) || error;
  }
}

/**
 * graphql-js suggests names ("Did you mean "orderUpdates"?") in validation errors; in
 * production that maps a schema whose introspection is off, so the suggestion is cut.
 */
export function withoutSuggestions(message: string): string {
  return message.replace(/\s*Did you mean .+\?$/s, '');
}
