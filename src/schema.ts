import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { VALIDATE_SETTINGS } from './common/validation';
import { AdResolver } from './modules/ads/ad.resolver';
import { AuthResolver } from './modules/auth/auth.resolver';
import {
  CatalogResolver,
  MenuCategoryFieldsResolver,
  MenuFieldsResolver,
  OptionGroupFieldsResolver,
  ProductFieldsResolver,
} from './modules/catalog/catalog.resolver';
import { MenuManagementResolver } from './modules/catalog/management.resolver';
import { DiscoveryResolver } from './modules/discovery/discovery.resolver';
import { OfferResolver, StoreOffersFieldResolver } from './modules/offers/offer.resolver';
import { AddressResolver } from './modules/addresses/address.resolver';
import { DriverResolver } from './modules/drivers/driver.resolver';
import { DispatchResolver } from './modules/orders/dispatch.resolver';
import { OrderFieldsResolver, OrderItemFieldsResolver, OrderResolver } from './modules/orders/order.resolver';
import { OrderPaymentFieldsResolver, OrderPaymentHistoryResolver, PaymentResolver } from './modules/payments/payment.resolver';
import { TrackingResolver } from './modules/tracking/tracking.resolver';
import { StoreCategoryFieldsResolver, StoreResolver } from './modules/stores/store.resolver';
import { authChecker, markSignedInFields } from './graphql/auth-checker';
import { refuseControlCharactersInArguments } from './graphql/control-characters';
import { AppPubSub, createAppPubSub } from './pubsub';
import { NotificationPreferenceResolver } from './modules/notifications/preference.resolver';
import { SentNotificationResolver } from './modules/notifications/sent-log.resolver';
import { WebPushResolver } from './modules/notifications/web-push.resolver';

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
  StoreOffersFieldResolver,
  AddressResolver,
  OrderResolver,
  OrderFieldsResolver,
  OrderItemFieldsResolver,
  DriverResolver,
  DispatchResolver,
  TrackingResolver,
  PaymentResolver,
  OrderPaymentFieldsResolver,
  OrderPaymentHistoryResolver,
  NotificationPreferenceResolver,
  SentNotificationResolver,
  WebPushResolver,
] as const;

/** `pubSub` is the app's event bus (type-graphql requires one for subscriptions). */
export async function buildAppSchema(pubSub: AppPubSub = createAppPubSub().pubSub): Promise<GraphQLSchema> {
  // One string rule for all inputs, on every field that takes arguments (after its auth check,
  // before its argument validation).
  refuseControlCharactersInArguments();
  // Every object type declares `simpleResolvers: true` (type-graphql's own option): a plain
  // property is read by graphql-js's default resolver, without type-graphql's per-field wrapper;
  // getters, field resolvers and coordinates (`simple: false`, they round) keep theirs.
  const schema = await buildSchema({
    resolvers,
    authChecker,
    pubSub,
    validate: VALIDATE_SETTINGS,
  });
  return markSignedInFields(schema);
}

/** The committed `schema.graphql`: sorted so that it changes only when the schema does. */
export function printAppSchema(schema: GraphQLSchema): string {
  return `# Generated from the code-first schema by \`npm run schema:print\`. Do not edit.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}
