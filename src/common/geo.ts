/** No store delivers farther than this; it also bounds every geo search box. */
export const MAX_DELIVERY_RADIUS_KM = 50;
