/**
 * The environment the benches run the service in (production mode, no logs, a fixed signing
 * secret, a WhatsApp account of its own): scripts/bench.ts's servers and scripts/reach-edits-bench.ts's
 * in-process service. The database and the answer cache are each bench's own. `npm run bench` and
 * `npm run peak` point WhatsApp at a local fake (scripts/bench-fake-channels.ts).
 */
export const BENCH_SERVICE_ENV = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'bench-only-secret-0123456789-abcdefghijklmnop',
  OTP_SENDER: 'whatsapp',
  WHATSAPP_PHONE_NUMBER_ID: 'bench',
  WHATSAPP_ACCESS_TOKEN: 'bench',
  // The checkout path's customers order many times a minute from one loopback address; the
  // limits are still counted (their statements are part of a checkout's cost), never reached.
  ORDERS_PER_CUSTOMER_PER_MINUTE: '1000000',
  ORDERS_PER_IP_PER_MINUTE: '1000000',
  // The bench's client stands where a deployment's load balancer stands: the checkouts path sends
  // each customer's own address as X-Forwarded-For (bench-customers.ts `checkoutRequests`).
  TRUST_PROXY: '1',
} as const;
