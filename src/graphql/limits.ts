/**
 * Limits that protect the schema, applied to /graphql (Apollo validation rules) and to the
 * websocket (graphql-ws runs no Apollo plugins, so onSubscribe applies the same rules).
 */
import { ASTVisitor, FragmentDefinitionNode, GraphQLError, Kind, SelectionSetNode, ValidationContext, ValidationRule } from 'graphql';

export const MAX_QUERY_DEPTH = 12;

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
