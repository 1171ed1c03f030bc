/**
 * Response shapes shared by several REST rows, as GraphQL fragments whose aliases are the
 * spec's snake_case names. A row appends the fragments its document spreads.
 */
import { RestRoute } from './route';

export const STORE_SUMMARY = `
  fragment RestStoreSummary on Store {
    id
    name
    slug
    logo
    image
    address
    delivery_time: deliveryTime
    category: categoryName
    category_id: categoryId
    rating
    rating_count: ratingCount
    delivery_price: deliveryPrice
    free_delivery: freeDelivery
    distance_km: distanceKm
    is_open: isOpen
  }`;

/**
 * The complete store object (spec §2.9 "complete store object"): GET /store/stores/{store}
 * and the order detail's `store` answer exactly this. Spread it with the fragments it uses
 * (`STORE_DETAIL_FRAGMENTS`).
 */
export const STORE_DETAIL = `
  fragment RestStoreDetail on Store {
    ...RestStoreSummary
    description
    latitude
    longitude
    timezone
    delivery_radius_km: deliveryRadiusKm
    category_detail: category { ...RestStoreCategory }
    opening_hours: openingHours { day_of_week: dayOfWeek opens_at: opensAt closes_at: closesAt }
    offers { ...RestOffer }
  }`;

export const PRODUCT = `
  fragment RestProduct on Product {
    id
    name
    description
    price
    image
    is_featured: isFeatured
    store_id: storeId
    menu_category_id: menuCategoryId
  }`;

export const OFFER = `
  fragment RestOffer on Offer {
    id
    title
    description
    discount
    token
    image
    store_id: storeId
    starts_at: startsAt
    ends_at: endsAt
  }`;

export const STORE_CATEGORY = `
  fragment RestStoreCategory on StoreCategory {
    id
    name
    icon
    image
    main_category_id: mainCategoryId
    sort_order: sortOrder
  }`;

export const MENU = `
  fragment RestMenu on Menu {
    id
    store_id: storeId
    name
    description
    is_active: isActive
    sort_order: sortOrder
  }`;

export const MENU_CATEGORY = `
  fragment RestMenuCategory on MenuCategory {
    id
    store_id: storeId
    menu_id: menuId
    name
    sort_order: sortOrder
  }`;

/** Spec §2.5, the `meta` of every paginated list. */
export const PAGE_META = `
  fragment RestPageMeta on PageMeta {
    total
    per_page: perPage
    current_page: currentPage
    last_page: lastPage
  }`;

/** RestStoreDetail with every fragment it spreads. */
export const STORE_DETAIL_FRAGMENTS = `${STORE_DETAIL} ${STORE_SUMMARY} ${STORE_CATEGORY} ${OFFER}`;

const ITEM = `product_id: productId product_name: productName quantity base_price: basePrice total_price: totalPrice`;

/** The order's latest payment attempt (null when none was started). */
const ORDER_PAYMENT = `payment { id method { id code name kind } status amount captured_amount: capturedAmount refunded_amount: refundedAmount currency }`;
/** The detail's payment also carries its history. */
const ORDER_PAYMENT_DETAIL = `payment {
  id method { id code name kind } status amount captured_amount: capturedAmount refunded_amount: refundedAmount currency
  events { status amount at }
}`;

export const ORDER_SUMMARY = `
  fragment RestOrderSummary on Order {
    id status subtotal total created_at: createdAt
    store { id name logo }
    ${ORDER_PAYMENT}
    items { ${ITEM} }
  }`;

export const ORDER_DETAIL = `
  fragment RestOrderDetail on Order {
    id status subtotal delivery_fee: deliveryFee discount total promo_code: promoCode
    created_at: createdAt rejection_reason: rejectionReason rejection_note: rejectionNote
    last_event_seq: lastEventSeq
    store { ...RestStoreDetail }
    user_address: deliveryAddress { label line1 line2 city latitude longitude instructions }
    driver { id name phone latitude longitude }
    timeline { status at }
    ${ORDER_PAYMENT_DETAIL}
    items {
      ${ITEM} unit_price: unitPrice special_instructions: specialInstructions
      options { id name price }
      supplements { id name price }
    }
  }
  ${STORE_DETAIL_FRAGMENTS}`;

/** An order lifecycle step: POST without a body, answered with the order's id and new status. */
export const orderStep = (path: string, mutation: string): RestRoute => ({
  method: 'POST',
  path,
  envelope: 'message',
  document: `mutation Step($id: Int!) { ${mutation}(id: $id) ${ORDER_ACTION} }`,
});

export const ORDER_ACTION = `{ message data: order { order_id: id status } }`;
