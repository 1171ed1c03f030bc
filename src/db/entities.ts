/** Every entity the ORM knows, listed once (no glob discovery: same in ts and compiled js). */
import { Timestamped } from '../common/timestamped';
import { User } from '../modules/users/user.entity';
import { RateLimitCounter } from './rate-limit.entity';
import { SocketInstance, SocketLease } from './socket-lease.entity';
import { UserDevice } from '../modules/users/user-device.entity';
import { OtpCode } from '../modules/auth/otp-code.entity';
import { OtpSend } from '../modules/auth/otp-send.entity';
import { PhoneVerification } from '../modules/auth/phone-verification.entity';
import { RevokedToken } from '../modules/auth/revoked-token.entity';
import { MainCategory } from '../modules/stores/main-category.entity';
import { StoreCategory } from '../modules/stores/store-category.entity';
import { Store } from '../modules/stores/store.entity';
import { OpeningHours } from '../modules/stores/opening-hours.entity';
import { Menu } from '../modules/catalog/menu.entity';
import { MenuCategory } from '../modules/catalog/menu-category.entity';
import { Product } from '../modules/catalog/product.entity';
import { PricedChoice, ProductOptionGroup, ProductOptionValue, ProductSupplement } from '../modules/catalog/product-option.entity';
import { Offer } from '../modules/offers/offer.entity';
import { Ad } from '../modules/ads/ad.entity';
import { UserAddress } from '../modules/addresses/address.entity';
import { PromoCode, PromoRedemption } from '../modules/promos/promo-code.entity';
import { Driver } from '../modules/drivers/driver.entity';
import { Order, OrderItem, OrderItemExtra } from '../modules/orders/order.entity';
import { OrderEvent } from '../modules/orders/order-event.entity';
import { NotificationOutbox } from '../modules/notifications/notification.entity';
import { NotificationPreference } from '../modules/notifications/preference.entity';
import { NotificationTarget } from '../modules/notifications/notification-target.entity';
import { WebPushSubscription } from '../modules/notifications/web-push.entity';
import { IdempotencyKey } from '../modules/orders/idempotency-key.entity';
import { PaymentMethod } from '../modules/payments/payment-method.entity';
import { Payment } from '../modules/payments/payment.entity';
import { PaymentWebhookEvent } from '../modules/payments/payment-webhook-event.entity';
import { PaymentEvent } from '../modules/payments/payment-event.entity';
import { StoreReachChange, StoreReachVersion } from '../modules/stores/store-reach-version.entity';
import { ProductSearchName, StoreSearchName } from '../modules/discovery/search-names.entity';

export const entities = [
  Timestamped,
  User,
  UserDevice,
  OtpCode,
  OtpSend,
  PhoneVerification,
  RevokedToken,
  MainCategory,
  StoreCategory,
  Store,
  OpeningHours,
  StoreReachVersion,
  StoreReachChange,
  Menu,
  MenuCategory,
  Product,
  ProductOptionGroup,
  PricedChoice,
  ProductOptionValue,
  ProductSupplement,
  Offer,
  Ad,
  UserAddress,
  PromoCode,
  PromoRedemption,
  Driver,
  Order,
  OrderItem,
  OrderItemExtra,
  OrderEvent,
  NotificationOutbox,
  NotificationPreference,
  NotificationTarget,
  WebPushSubscription,
  IdempotencyKey,
  PaymentMethod,
  StoreSearchName,
  ProductSearchName,
  Payment,
  PaymentWebhookEvent,
  PaymentEvent,
  RateLimitCounter,
  SocketLease,
  SocketInstance,
];
