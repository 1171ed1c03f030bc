/**
 * The texts of notifications, in English and French; the device's language (Accept-Language at
 * sign-in) picks one, English when it is neither. Every message names the order and its store.
 */
import type { NotificationKind } from './outbox';

export const LOCALES = ['en', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

/** What a message may say about its order. */
export interface OrderFacts {
  orderId: number;
  status: string;
  storeName: string;
  total: string;
  items: string;
  driverName: string | null;
  rejectionReason: string | null;
}

type Texts = Record<NotificationKind, (o: OrderFacts) => { title: string; body: string }>;

const REASONS: Record<Locale, Record<string, string>> = {
  en: {
    too_busy: 'the store is too busy',
    closing_soon: 'the store is closing soon',
    items_unavailable: 'some items are unavailable',
    outside_delivery_area: 'the address is outside the delivery area',
    other: 'the store could not take it',
  },
  fr: {
    too_busy: 'le commerce est débordé',
    closing_soon: 'le commerce ferme bientôt',
    items_unavailable: 'certains articles sont indisponibles',
    outside_delivery_area: "l'adresse est hors de la zone de livraison",
    other: "le commerce n'a pas pu la prendre",
  },
};

const TEXTS: Record<Locale, Texts> = {
  en: {
    new_order: (o) => ({ title: `New order #${o.orderId}`, body: `${o.storeName}: ${o.items} — ${o.total}` }),
    order_cancelled: (o) => ({ title: `Order #${o.orderId} cancelled`, body: `The customer cancelled their order at ${o.storeName}.` }),
    payment_authorized: (o) => ({
      title: `Order #${o.orderId} paid`,
      body: `The card payment for ${o.storeName} is authorised: the order can be accepted.`,
    }),
    accept_reminder: (o) => ({
      title: `Order #${o.orderId} is waiting`,
      body: `Accept or reject it at ${o.storeName} before it is rejected automatically.`,
    }),
    order_accepted: (o) => ({ title: `Order #${o.orderId} accepted`, body: `${o.storeName} accepted your order.` }),
    order_rejected: (o) => ({
      title: `Order #${o.orderId} rejected`,
      body: `${o.storeName} rejected your order: ${REASONS.en[o.rejectionReason ?? 'other'] ?? REASONS.en.other}.`,
    }),
    order_auto_rejected: (o) => ({
      title: `Order #${o.orderId} not accepted`,
      body: `${o.storeName} did not answer in time; your order was cancelled.`,
    }),
    order_ready: (o) => ({ title: `Order #${o.orderId} is ready`, body: `${o.storeName} has your order ready for pickup.` }),
    order_on_the_way: (o) => ({
      title: `Order #${o.orderId} is on the way`,
      body: `${o.driverName ?? 'Your driver'} picked up your order from ${o.storeName}.`,
    }),
    order_delivered: (o) => ({ title: `Order #${o.orderId} delivered`, body: `Your order from ${o.storeName} was delivered. Enjoy!` }),
    payment_declined: (o) => ({
      title: `Payment declined for order #${o.orderId}`,
      body: `Your card was declined for ${o.storeName}. Try another card.`,
    }),
    payment_released: (o) => ({
      title: `Payment released for order #${o.orderId}`,
      body: `The amount held for ${o.storeName} was released to your card.`,
    }),
    driver_assigned: (o) => ({ title: `New delivery: order #${o.orderId}`, body: `Pick it up at ${o.storeName}.` }),
  },
  fr: {
    new_order: (o) => ({ title: `Nouvelle commande n°${o.orderId}`, body: `${o.storeName} : ${o.items} — ${o.total}` }),
    order_cancelled: (o) => ({ title: `Commande n°${o.orderId} annulée`, body: `Le client a annulé sa commande chez ${o.storeName}.` }),
    payment_authorized: (o) => ({
      title: `Commande n°${o.orderId} payée`,
      body: `Le paiement par carte pour ${o.storeName} est autorisé : la commande peut être acceptée.`,
    }),
    accept_reminder: (o) => ({
      title: `La commande n°${o.orderId} attend`,
      body: `Acceptez-la ou refusez-la chez ${o.storeName} avant son refus automatique.`,
    }),
    order_accepted: (o) => ({ title: `Commande n°${o.orderId} acceptée`, body: `${o.storeName} a accepté votre commande.` }),
    order_rejected: (o) => ({
      title: `Commande n°${o.orderId} refusée`,
      body: `${o.storeName} a refusé votre commande : ${REASONS.fr[o.rejectionReason ?? 'other'] ?? REASONS.fr.other}.`,
    }),
    order_auto_rejected: (o) => ({
      title: `Commande n°${o.orderId} non acceptée`,
      body: `${o.storeName} n'a pas répondu à temps ; votre commande est annulée.`,
    }),
    order_ready: (o) => ({ title: `Commande n°${o.orderId} prête`, body: `${o.storeName} a préparé votre commande.` }),
    order_on_the_way: (o) => ({
      title: `Commande n°${o.orderId} en route`,
      body: `${o.driverName ?? 'Votre livreur'} a récupéré votre commande chez ${o.storeName}.`,
    }),
    order_delivered: (o) => ({
      title: `Commande n°${o.orderId} livrée`,
      body: `Votre commande de ${o.storeName} est livrée. Bon appétit !`,
    }),
    payment_declined: (o) => ({
      title: `Paiement refusé pour la commande n°${o.orderId}`,
      body: `Votre carte a été refusée pour ${o.storeName}. Essayez une autre carte.`,
    }),
    payment_released: (o) => ({
      title: `Paiement libéré pour la commande n°${o.orderId}`,
      body: `Le montant réservé pour ${o.storeName} a été libéré sur votre carte.`,
    }),
    driver_assigned: (o) => ({ title: `Nouvelle livraison : commande n°${o.orderId}`, body: `À récupérer chez ${o.storeName}.` }),
  },
};

export function render(kind: NotificationKind, locale: string | null | undefined, order: OrderFacts) {
  const language: Locale = locale === 'fr' ? 'fr' : 'en';
  return TEXTS[language][kind](order);
}

/**
 * The first language of an Accept-Language header we have texts for (`fr-FR,fr;q=0.9,en;q=0.8`
 * → fr), by quality; null when none is (the texts then fall back to English).
 */
export function localeFromAcceptLanguage(header: string | undefined): Locale | null {
  if (!header) return null;
  const ranked = header
    .slice(0, 256)
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
      return { language: tag.trim().toLowerCase().split('-')[0], q: q ? Number(q[1]) : 1, index };
    })
    .filter((e) => e.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return (ranked.find((e) => (LOCALES as readonly string[]).includes(e.language))?.language as Locale | undefined) ?? null;
}
