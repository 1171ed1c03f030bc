import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import type { PubSub } from 'type-graphql';
import { AdResolver } from '../modules/ads/ad.resolver';
import { AuthResolver } from '../modules/auth/auth.resolver';
import {
  CatalogResolver,
  MenuCategoryFieldsResolver,
  MenuFieldsResolver,
  OptionGroupFieldsResolver,
  ProductFieldsResolver,
} from '../modules/catalog/catalog.resolver';
import { MenuManagementResolver } from '../modules/catalog/management.resolver';
import { DiscoveryResolver } from '../modules/discovery/discovery.resolver';
import { OfferResolver } from '../modules/offers/offer.resolver';
import { StoreCategoryFieldsResolver, StoreResolver } from '../modules/stores/store.resolver';
import { authChecker } from './auth-checker';

export const resolvers = [
  AuthResolver,
  StoreResolver,
  StoreCategoryFieldsResolver,
  CatalogResolver,
  MenuFieldsResolver,
  MenuCategoryFieldsResolver,
  ProductFieldsResolver,
  OptionGroupFieldsResolver,
  AdResolver,
  DiscoveryResolver,
  MenuManagementResolver,
  OfferResolver,
] as const;

export async function buildAppSchema(pubSub?: PubSub): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers,
    authChecker,
    pubSub,
    // Without these, validation errors echo the whole input back to the caller.
    validate: { forbidUnknownValues: true, validationError: { target: false, value: false } },
  });
}

/** The committed `schema.graphql`: sorted so that it changes only when the schema does. */
export function printAppSchema(schema: GraphQLSchema): string {
  return `# Generated from the code-first schema by \`npm run schema:print\`. Do not edit.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}
