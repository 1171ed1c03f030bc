import { GraphQLSchema } from 'graphql';
import { AuthCheckerFn, getMetadataStorage } from 'type-graphql';
import { assertSignedIn, Context, SIGNED_IN } from '../context';

/** `@Authorized()` means "a valid token": the refusal carries why (expired, revoked...). */
export const authChecker: AuthCheckerFn<Context> = ({ context }) => {
  assertSignedIn(context);
  return true;
};

/**
 * Marks the root fields declared `@Authorized()` (on the method or its resolver class) with
 * the SIGNED_IN extension, so that other ways in (the REST adapter) read the one declaration.
 */
export function markSignedInFields(schema: GraphQLSchema): GraphQLSchema {
  const metadata = getMetadataStorage();
  const declared = (target: (typeof metadata.queries)[number]['target'], method: string) =>
    metadata.authorizedFields.some((f) => f.target === target && f.fieldName === method) ||
    metadata.authorizedResolver.some((r) => r.target === target);
  const roots = [
    [schema.getQueryType(), metadata.queries],
    [schema.getMutationType(), metadata.mutations],
    [schema.getSubscriptionType(), metadata.subscriptions],
  ] as const;
  for (const [type, handlers] of roots) {
    const fields = type?.getFields() ?? {};
    for (const handler of handlers) {
      const field = fields[handler.schemaName];
      if (field && declared(handler.target, handler.methodName)) {
        (field as { extensions: Record<string, unknown> }).extensions = { ...field.extensions, [SIGNED_IN]: true };
      }
    }
  }
  return schema;
}
