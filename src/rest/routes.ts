/** Every documented REST path, module by module. */
import { authRoutes } from '../modules/auth/auth.rest';
import { catalogRoutes } from '../modules/catalog/catalog.rest';
import { managementRoutes } from '../modules/catalog/management.rest';
import { discoveryRoutes } from '../modules/discovery/discovery.rest';
import { offerRoutes } from '../modules/offers/offer.rest';
import { addressRoutes } from '../modules/addresses/address.rest';
import { orderRoutes } from '../modules/orders/order.rest';
import { paymentRoutes } from '../modules/payments/payment.rest';
import { RestRoute } from './route';

export const restRoutes: RestRoute[] = [...authRoutes, ...discoveryRoutes, ...catalogRoutes, ...managementRoutes, ...offerRoutes, ...addressRoutes, ...orderRoutes, ...paymentRoutes];
