/** Every documented REST path, module by module: the route table the REST adapter (rest/) serves. */
import { adRoutes } from './modules/ads/ad.rest';
import { authRoutes } from './modules/auth/auth.rest';
import { catalogRoutes } from './modules/catalog/catalog.rest';
import { managementRoutes } from './modules/catalog/management.rest';
import { discoveryRoutes } from './modules/discovery/discovery.rest';
import { offerRoutes } from './modules/offers/offer.rest';
import { addressRoutes } from './modules/addresses/address.rest';
import { storeRoutes } from './modules/stores/store.rest';
import { driverRoutes } from './modules/drivers/driver.rest';
import { orderRoutes } from './modules/orders/order.rest';
import { paymentRoutes } from './modules/payments/payment.rest';
import { preferenceRoutes, sentLogRoutes } from './modules/notifications/preference.rest';
import { webPushRoutes } from './modules/notifications/web-push.rest';
import { RestRoute } from './rest/route';

export const restRoutes: RestRoute[] = [
  ...authRoutes,
  ...discoveryRoutes,
  ...adRoutes,
  ...catalogRoutes,
  ...storeRoutes,
  ...managementRoutes,
  ...offerRoutes,
  ...addressRoutes,
  ...orderRoutes,
  ...driverRoutes,
  ...paymentRoutes,
  ...preferenceRoutes,
  ...sentLogRoutes,
  ...webPushRoutes,
];
