/**
 * Configuration from the environment, validated once at start. Every bad value is reported
 * with its variable name; production refuses development-only features and weak secrets.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { parseProxyTrust, ProxyTrust } from './common/client-ip';
import { DEFAULT_SESSION_NAME } from './common/session-name';

export type Environment = 'development' | 'test' | 'production';
export type OtpSenderKind = 'log' | 'whatsapp';

export interface Config {
  env: Environment;
  host: string;
  port: number;
  /** INSTANCE_NAME: sent as X-Instance on every answer (which instance behind a balancer answered). */
  instanceName?: string;
  /** METRICS_PORT: Prometheus' /metrics on this port only (main.ts); unset = not served. */
  metrics: { port?: number; host: string };
  logLevel: string;
  /** json: one JSON object per line; pretty: coloured one-line records for a terminal. */
  logFormat: 'json' | 'pretty';
  /** GraphiQL at GET /graphql in a browser; off in production unless GRAPHIQL_ENABLED=true. */
  graphiql: boolean;
  /** PostgreSQL connection string; undefined means the embedded database in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  redisUrl?: string;
  /**
   * Namespace of live-event channels on Redis; by default the database name, so deployments
   * (or test runs) sharing one Redis never see each other's events.
   */
  redisPrefix?: string;
  /** Which proxies' X-Forwarded-For entries are believed (common/client-ip.ts). */
  trustProxy: ProxyTrust;
  /** Browser origins allowed by CORS; empty = CORS off (no Access-Control-* headers). */
  corsOrigins: string[];
  bodyLimit: string;
  jwt: {
    secret: string;
    issuer: string;
    audience: string;
    ttlSeconds: number;
    /** A token found unrevoked is trusted this long before `revoked_tokens` is asked again (logouts are heard at once). */
    revocationRecheckSeconds: number;
  };
  otp: {
    sender: OtpSenderKind;
    ttlSeconds: number;
    maxAttempts: number;
    resendCooldownSeconds: number;
    perPhonePerHour: number;
    perPhonePerDay: number;
    perIpPerHour: number;
    perIpPerDay: number;
    /** How long a verified phone may complete its profile. */
    verificationTtlSeconds: number;
    /** E.164 number -> fixed code; no message is sent to these. */
    testNumbers: Map<string, string>;
    defaultCountry?: string;
  };
  orders: {
    /** A pending order its store has not answered after this long is rejected. */
    acceptTimeoutSeconds: number;
  };
  tracking: {
    /** Drivers' positions are written to PostgreSQL and sent to followers in a batch this often. */
    positionFlushMs: number;
  };
  payments: PaymentsConfig;
  database: {
    poolMax: number;
    /** Any statement running longer is cancelled (503). */
    statementTimeoutMs: number;
    /** Waiting longer for a row or table lock is cancelled (503). */
    lockTimeoutMs: number;
    /** A transaction left idle this long is ended by the server. */
    idleInTransactionTimeoutMs: number;
    /** Waiting longer for a free pooled connection answers 503 with Retry-After. */
    acquireTimeoutMs: number;
    /** /readyz answers 503 when the database (or Redis) has not answered within this. */
    readyTimeoutMs: number;
    /** PGAPPNAME: what the service's sessions are named after in pg_stat_activity (common/session-name.ts). */
    sessionName: string;
  };
  websocket: {
    /** Larger frames close the socket (1009) before they are buffered. */
    maxPayloadBytes: number;
    maxSocketsPerUser: number;
    maxSocketsPerIp: number;
    connectionsPerIpPerMinute: number;
    /** A socket whose unsent data grows past this is dropped (slow consumer). */
    maxBufferedBytes: number;
    /** A socket that has not taken any data for this long while some waits is dropped. */
    sendTimeoutSeconds: number;
    keepAliveSeconds: number;
    /** Open sockets' tokens are checked against revocations this often (besides the live notice). */
    tokenRecheckSeconds: number;
  };
  /**
   * The public REST reads' answer cache (rest/answer-cache.ts): answers kept for the rest of
   * the second they were computed in (a write is seen within a second).
   */
  readCache: { enabled: boolean; maxEntries: number; maxBytes: number };
  /** REACH_INDEX: nearby and home from the in-process reach index (modules/stores/reach/); off = SQL alone, same answers. */
  reachIndex: boolean;
  rateLimits: {
    /** Checkouts carrying a promo code that fails, per customer / per IP, per hour. */
    promoFailuresPerCustomerPerHour: number;
    promoFailuresPerIpPerHour: number;
    /** Order placements per customer / per IP, per minute. */
    ordersPerCustomerPerMinute: number;
    ordersPerIpPerMinute: number;
    /** Wrong one-time codes (verify-otp) per client IP, per 15 minutes, across all phones. */
    otpFailuresPerIpPer15Minutes: number;
  };
  notifications: NotificationsConfig;
  whatsapp: {
    apiUrl: string;
    phoneNumberId: string;
    accessToken: string;
    templateName: string;
    templateLanguage: string;
    timeoutMs: number;
  };
}

export interface NotificationsConfig {
  /** Whether this instance runs an outbox worker (every instance does; tests start theirs when they need one). */
  worker: boolean;
  /** How often the worker looks for due rows besides the wake-up after a local commit. */
  pollMs: number;
  batchSize: number;
  /** Attempts before a row is given up (status failed, the reason kept). */
  maxAttempts: number;
  /** The first retry's delay; each further one doubles it (with jitter), up to an hour. */
  backoffMs: number;
  /** A claimed row becomes claimable again after this long (its instance died mid-send). */
  leaseSeconds: number;
  /** Finished rows older than this are pruned. */
  retentionDays: number;
  /** FCM HTTP v1 when a service account is configured. */
  fcm?: { account: ServiceAccount; apiUrl: string; tokenUrl: string; timeoutMs: number };
  /** Approved WhatsApp template names by notification kind. */
  whatsappTemplates: Record<string, string>;
  webPush: WebPushConfig;
}

export interface WebPushConfig {
  /** VAPID key pair (base64url); unset = kept in the data dir outside production, Web Push off in production (vapid-keys.ts). */
  keys?: { publicKey: string; privateKey: string };
  /** mailto: or https: URL the push services may contact about our sends. */
  subject: string;
  /**
   * Origins (a local fake push service) whose endpoints are taken without the public-host rules
   * (web-push-endpoint.ts); refused in production, where only https endpoints of public hosts are.
   */
  allowedOrigins: string[];
  timeoutMs: number;
}

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

export interface PaymentsConfig {
  /** ISO 4217, lower case (Stripe's spelling); every amount of the platform is in it. */
  currency: string;
  /** Set only when all three keys are: without them cards are not offered (cash always is). */
  stripe?: {
    secretKey: string;
    publishableKey: string;
    webhookSecret: string;
    /** Where the SDK sends requests; Stripe's own API unless STRIPE_API_URL points elsewhere (tests). */
    apiUrl?: string;
    timeoutMs: number;
    maxNetworkRetries: number;
    /** Seconds a webhook signature stays valid (Stripe's tolerance). */
    webhookToleranceSeconds: number;
  };
  /** Payments left waiting longer than this are checked with their provider. */
  reconcileAfterSeconds: number;
  /** How often every instance runs the reconciliation job. */
  reconcileEverySeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Used only outside production so that `npm start` works with nothing set. */
export const DEVELOPMENT_JWT_SECRET = 'development-only-secret-do-not-use-in-production';

/**
 * A fresh development install can sign in without reading logs: the demo customer and the
 * three demo store owners of the demo city (src/db/seed), see the README.
 */
export const DEVELOPMENT_TEST_NUMBERS =
  '+15550000001=123456,+15550001001=123456,+15550001002=123456,+15550001003=123456,+15550002001=123456,+15550002002=123456';

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const int = (name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a whole number between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean) => {
    const raw = read(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes'].includes(raw)) return true;
    if (['0', 'false', 'no'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  };
  const url = (name: string, fallback?: string, protocols = ['http:', 'https:']) => {
    const raw = read(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error();
      return raw;
    } catch {
      problems.push(`${name} must be a URL starting with ${protocols.join(' or ')}`);
      return undefined;
    }
  };

  const envName = oneOf<Environment>('NODE_ENV', ['development', 'test', 'production'], 'development');
  const production = envName === 'production';

  let secret = read('JWT_SECRET');
  if (!secret) {
    if (production) problems.push('JWT_SECRET is required in production (at least 32 characters)');
    secret = DEVELOPMENT_JWT_SECRET;
  } else if (secret.length < 32) {
    problems.push('JWT_SECRET must be at least 32 characters');
  } else if (production && secret === DEVELOPMENT_JWT_SECRET) {
    problems.push('JWT_SECRET must not be the development secret in production');
  }

  const sender = oneOf<OtpSenderKind>('OTP_SENDER', ['log', 'whatsapp'], production ? 'whatsapp' : 'log');
  const whatsapp = {
    apiUrl: url('WHATSAPP_API_URL', 'https://graph.facebook.com/v21.0') ?? '',
    phoneNumberId: read('WHATSAPP_PHONE_NUMBER_ID') ?? '',
    accessToken: read('WHATSAPP_ACCESS_TOKEN') ?? '',
    templateName: read('WHATSAPP_TEMPLATE_NAME') ?? 'otp_code',
    templateLanguage: read('WHATSAPP_TEMPLATE_LANGUAGE') ?? 'en_US',
    timeoutMs: int('WHATSAPP_TIMEOUT_MS', 10_000, 100, 120_000),
  };
  if (sender === 'whatsapp') {
    if (!whatsapp.phoneNumberId) problems.push('WHATSAPP_PHONE_NUMBER_ID is required when OTP_SENDER=whatsapp');
    if (!whatsapp.accessToken) problems.push('WHATSAPP_ACCESS_TOKEN is required when OTP_SENDER=whatsapp');
  }

  const testNumbers = parseTestNumbers(
    read('OTP_TEST_NUMBERS') ?? (envName === 'development' ? DEVELOPMENT_TEST_NUMBERS : undefined),
    problems,
  );
  const databaseUrl = url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  if (production) {
    if (sender === 'log') problems.push('OTP_SENDER=log writes codes to the log and is refused in production');
    if (testNumbers.size > 0) problems.push('OTP_TEST_NUMBERS is a development feature and is refused in production');
    if (!read('DATABASE_URL')) problems.push('DATABASE_URL is required in production (the embedded database is for development)');
  }
  // auto: pretty when a person watches the terminal, JSON for log collectors; always JSON in production.
  if (read('METRICS_PORT') !== undefined && read('METRICS_PORT') !== '0' && read('METRICS_PORT') === (read('PORT') ?? '3000')) {
    problems.push('METRICS_PORT must differ from PORT: the metrics are never served on the public port');
  }
  const logFormatSetting = oneOf('LOG_FORMAT', ['auto', 'json', 'pretty'], 'auto');
  if (production && logFormatSetting === 'pretty') problems.push('LOG_FORMAT=pretty is refused in production: logs are JSON there');
  const logFormat = !production && (logFormatSetting === 'pretty' || (logFormatSetting === 'auto' && isTerminal())) ? 'pretty' : 'json';
  const defaultCountry = read('PHONE_DEFAULT_COUNTRY')?.toUpperCase();
  if (defaultCountry !== undefined && !/^[A-Z]{2}$/.test(defaultCountry)) {
    problems.push('PHONE_DEFAULT_COUNTRY must be a two-letter country code such as MA or FR');
  }

  const payments = paymentsConfig(read, int, url, production, problems);

  let account: ServiceAccount | undefined;
  try {
    account = readServiceAccount(read('FCM_SERVICE_ACCOUNT_JSON'), read('GOOGLE_APPLICATION_CREDENTIALS'));
  } catch (error) {
    problems.push(`FCM_SERVICE_ACCOUNT_JSON / GOOGLE_APPLICATION_CREDENTIALS: ${(error as Error).message}`);
  }
  const fcmApiUrl = url('FCM_API_URL', 'https://fcm.googleapis.com');
  const fcmTokenUrl = url('FCM_TOKEN_URL', account?.token_uri ?? 'https://oauth2.googleapis.com/token');
  const notifications: NotificationsConfig = {
    worker: bool('NOTIFICATIONS_WORKER', envName !== 'test'),
    pollMs: int('NOTIFICATIONS_POLL_MS', 1000, 10, 60_000),
    batchSize: int('NOTIFICATIONS_BATCH_SIZE', 50, 1, 1000),
    maxAttempts: int('NOTIFICATIONS_MAX_ATTEMPTS', 8, 1, 50),
    backoffMs: int('NOTIFICATIONS_BACKOFF_MS', 2000, 1, 3_600_000),
    leaseSeconds: int('NOTIFICATIONS_LEASE_SECONDS', 60, 1, 3600),
    retentionDays: int('NOTIFICATIONS_RETENTION_DAYS', 14, 1, 3650),
    fcm:
      account && fcmApiUrl && fcmTokenUrl
        ? { account, apiUrl: fcmApiUrl, tokenUrl: fcmTokenUrl, timeoutMs: int('FCM_TIMEOUT_MS', 10_000, 100, 120_000) }
        : undefined,
    whatsappTemplates: {
      new_order: read('WHATSAPP_TEMPLATE_NEW_ORDER') ?? 'new_order',
    },
    webPush: webPushConfig(read, int, production, problems),
  };

  const config: Config = {
    env: envName,
    host: read('HOST') ?? '0.0.0.0',
    port: int('PORT', 3000, 0, 65535),
    instanceName: read('INSTANCE_NAME'),
    metrics: {
      port: read('METRICS_PORT') === undefined ? undefined : int('METRICS_PORT', 0, 0, 65535),
      host: read('METRICS_HOST') ?? read('HOST') ?? '0.0.0.0',
    },
    logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], envName === 'test' ? 'silent' : 'info'),
    logFormat,
    graphiql: bool('GRAPHIQL_ENABLED', !production),
    databaseUrl,
    dataDir: path.resolve(read('DATA_DIR') ?? '.data'),
    redisUrl: url('REDIS_URL', undefined, ['redis:', 'rediss:']),
    redisPrefix: read('REDIS_PREFIX'),
    trustProxy: proxyTrust(read('TRUST_PROXY'), problems),
    corsOrigins: origins(read('CORS_ORIGINS'), problems),
    bodyLimit: read('BODY_LIMIT') ?? '100kb',
    jwt: {
      secret,
      issuer: read('JWT_ISSUER') ?? 'delivery-platform',
      audience: read('JWT_AUDIENCE') ?? 'delivery-platform-clients',
      ttlSeconds: int('ACCESS_TOKEN_TTL_SECONDS', 30 * 24 * 3600, 60),
      revocationRecheckSeconds: int('TOKEN_REVOCATION_RECHECK_SECONDS', 30, 0, 3600),
    },
    otp: {
      sender,
      ttlSeconds: int('OTP_TTL_SECONDS', 300, 30, 3600),
      maxAttempts: int('OTP_MAX_ATTEMPTS', 5, 1, 20),
      resendCooldownSeconds: int('OTP_RESEND_COOLDOWN_SECONDS', 60, 0, 3600),
      perPhonePerHour: int('OTP_MAX_PER_PHONE_PER_HOUR', 5, 1),
      perPhonePerDay: int('OTP_MAX_PER_PHONE_PER_DAY', 10, 1),
      perIpPerHour: int('OTP_MAX_PER_IP_PER_HOUR', 20, 1),
      perIpPerDay: int('OTP_MAX_PER_IP_PER_DAY', 100, 1),
      verificationTtlSeconds: int('OTP_VERIFICATION_TTL_SECONDS', 900, 60, 86400),
      testNumbers,
      defaultCountry,
    },
    orders: { acceptTimeoutSeconds: int('ORDER_ACCEPT_TIMEOUT_SECONDS', 600, 10, 86400) },
    tracking: { positionFlushMs: int('POSITION_FLUSH_MS', 500, 20, 1000) },
    payments,
    database: {
      poolMax: int('DB_POOL_MAX', 10, 1, 500),
      statementTimeoutMs: int('DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 3_600_000),
      lockTimeoutMs: int('DB_LOCK_TIMEOUT_MS', 3_000, 10, 3_600_000),
      idleInTransactionTimeoutMs: int('DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 30_000, 100, 3_600_000),
      acquireTimeoutMs: int('DB_ACQUIRE_TIMEOUT_MS', 5_000, 10, 600_000),
      readyTimeoutMs: int('READY_TIMEOUT_MS', 1_000, 50, 60_000),
      sessionName: sessionName(read('PGAPPNAME'), problems),
    },
    websocket: {
      maxPayloadBytes: int('WS_MAX_PAYLOAD_BYTES', 32 * 1024, 1024, 1024 * 1024),
      maxSocketsPerUser: int('WS_MAX_SOCKETS_PER_USER', 3, 1, 1000),
      maxSocketsPerIp: int('WS_MAX_SOCKETS_PER_IP', 200, 1),
      connectionsPerIpPerMinute: int('WS_CONNECTIONS_PER_IP_PER_MINUTE', 120, 1),
      maxBufferedBytes: int('WS_MAX_BUFFERED_BYTES', 1024 * 1024, 1024),
      sendTimeoutSeconds: int('WS_SEND_TIMEOUT_SECONDS', 10, 1, 600),
      keepAliveSeconds: int('WS_KEEPALIVE_SECONDS', 12, 1, 600),
      tokenRecheckSeconds: int('WS_TOKEN_RECHECK_SECONDS', 60, 1, 3600),
    },
    readCache: {
      enabled: oneOf('READ_CACHE', ['on', 'off'], 'on') === 'on',
      maxEntries: int('READ_CACHE_MAX_ENTRIES', 2_000, 1, 1_000_000),
      maxBytes: int('READ_CACHE_MAX_BYTES', 32 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024),
    },
    reachIndex: oneOf('REACH_INDEX', ['on', 'off'], 'on') === 'on',
    rateLimits: {
      promoFailuresPerCustomerPerHour: int('PROMO_FAILURES_PER_CUSTOMER_PER_HOUR', 10, 1),
      promoFailuresPerIpPerHour: int('PROMO_FAILURES_PER_IP_PER_HOUR', 30, 1),
      ordersPerCustomerPerMinute: int('ORDERS_PER_CUSTOMER_PER_MINUTE', 5, 1),
      ordersPerIpPerMinute: int('ORDERS_PER_IP_PER_MINUTE', 30, 1),
      otpFailuresPerIpPer15Minutes: int('OTP_FAILURES_PER_IP_PER_15_MINUTES', 20, 1),
    },
    notifications,
    whatsapp,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

function proxyTrust(raw: string | undefined, problems: string[]): ProxyTrust {
  try {
    return parseProxyTrust(raw);
  } catch (error) {
    problems.push(
      `TRUST_PROXY must be false, true (one proxy), a number of proxies, or proxy addresses/subnets separated by commas (${(error as Error).message})`,
    );
    return false;
  }
}

/**
 * Cards are on when the three Stripe keys are set. Some but not all of them is a mistake that
 * production refuses; elsewhere it just leaves cards off (docs/decisions.md).
 */
function paymentsConfig(
  read: (name: string) => string | undefined,
  int: (name: string, fallback: number, min?: number, max?: number) => number,
  url: (name: string, fallback?: string) => string | undefined,
  production: boolean,
  problems: string[],
): PaymentsConfig {
  const currency = (read('PAYMENT_CURRENCY') ?? 'mad').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) problems.push('PAYMENT_CURRENCY must be a three-letter ISO 4217 code such as MAD or EUR');
  const keys = {
    STRIPE_SECRET_KEY: [read('STRIPE_SECRET_KEY'), /^(sk|rk)_(test|live)_\w+$/],
    STRIPE_PUBLISHABLE_KEY: [read('STRIPE_PUBLISHABLE_KEY'), /^pk_(test|live)_\w+$/],
    STRIPE_WEBHOOK_SECRET: [read('STRIPE_WEBHOOK_SECRET'), /^whsec_\w+$/],
  } as const;
  const present = Object.entries(keys).filter(([, [value]]) => value !== undefined);
  for (const [name, [value, shape]] of present) {
    if (!shape.test(value!)) problems.push(`${name} does not look like a Stripe key (${shape.source})`);
  }
  if (production && present.length > 0 && present.length < 3) {
    const missing = Object.keys(keys).filter((name) => !present.some(([p]) => p === name));
    problems.push(`Stripe is partly configured: ${missing.join(', ')} missing (set all three keys, or none to offer cash only)`);
  }
  const apiUrl = url('STRIPE_API_URL');
  const stripe =
    present.length === 3
      ? {
          secretKey: keys.STRIPE_SECRET_KEY[0]!,
          publishableKey: keys.STRIPE_PUBLISHABLE_KEY[0]!,
          webhookSecret: keys.STRIPE_WEBHOOK_SECRET[0]!,
          apiUrl,
          timeoutMs: int('STRIPE_TIMEOUT_MS', 20_000, 100, 120_000),
          maxNetworkRetries: int('STRIPE_MAX_NETWORK_RETRIES', 2, 0, 10),
          webhookToleranceSeconds: int('STRIPE_WEBHOOK_TOLERANCE_SECONDS', 300, 1, 3600),
        }
      : undefined;
  return {
    currency,
    stripe,
    reconcileAfterSeconds: int('PAYMENT_RECONCILE_AFTER_SECONDS', 900, 10, 7 * 86400),
    reconcileEverySeconds: int('PAYMENT_RECONCILE_EVERY_SECONDS', 60, 1, 3600),
  };
}

/**
 * Web Push: both VAPID keys or neither (development then keeps a generated pair in the data
 * dir); the allowlist of fake push services only outside production.
 */
function webPushConfig(
  read: (name: string) => string | undefined,
  int: (name: string, fallback: number, min?: number, max?: number) => number,
  production: boolean,
  problems: string[],
): WebPushConfig {
  const publicKey = read('WEB_PUSH_VAPID_PUBLIC_KEY');
  const privateKey = read('WEB_PUSH_VAPID_PRIVATE_KEY');
  const subject = read('WEB_PUSH_SUBJECT') ?? 'mailto:notifications@delivery-platform.invalid';
  if (!/^(mailto:|https:\/\/)\S+$/.test(subject)) problems.push('WEB_PUSH_SUBJECT must be a mailto: or https: URL');
  const base64urlBytes = (value: string | undefined) =>
    value && /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url').length : -1;
  if ((publicKey === undefined) !== (privateKey === undefined)) {
    problems.push('WEB_PUSH_VAPID_PUBLIC_KEY and WEB_PUSH_VAPID_PRIVATE_KEY go together: set both, or neither');
  } else if (publicKey !== undefined) {
    if (base64urlBytes(publicKey) !== 65) problems.push('WEB_PUSH_VAPID_PUBLIC_KEY must be a P-256 public key, 65 bytes in base64url');
    if (base64urlBytes(privateKey) !== 32) problems.push('WEB_PUSH_VAPID_PRIVATE_KEY must be a P-256 private key, 32 bytes in base64url');
  }
  if (production && publicKey && !read('WEB_PUSH_SUBJECT')) {
    problems.push('WEB_PUSH_SUBJECT (mailto: or https: contact for the push services) is required in production with VAPID keys');
  }
  const allowedOrigins = origins(read('WEB_PUSH_ALLOWED_ORIGINS'), problems, 'WEB_PUSH_ALLOWED_ORIGINS');
  if (production && allowedOrigins.length > 0) {
    problems.push('WEB_PUSH_ALLOWED_ORIGINS lets endpoints reach private addresses and is refused in production');
  }
  return {
    keys: publicKey && privateKey ? { publicKey, privateKey } : undefined,
    subject,
    allowedOrigins,
    timeoutMs: int('WEB_PUSH_TIMEOUT_MS', 10_000, 100, 120_000),
  };
}

/** `https://a.example,https://b.example` -> origins; `*` is refused (tokens travel in headers, but say who). */
function origins(raw: string | undefined, problems: string[], name = 'CORS_ORIGINS'): string[] {
  if (!raw) return [];
  const list = raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of list) {
    let ok: boolean;
    try {
      const parsed = new URL(origin);
      ok = ['http:', 'https:'].includes(parsed.protocol) && parsed.origin === origin;
    } catch {
      ok = false;
    }
    if (!ok) problems.push(`${name} entry "${origin}" must be an origin such as https://dashboard.example.com`);
  }
  return list;
}

/**
 * PGAPPNAME names the service's sessions (`<name> <pid>-<pool>`, common/session-name.ts): at most
 * 40 visible ASCII characters, so that the whole name fits PostgreSQL's 63 bytes and reads the same.
 */
function sessionName(raw: string | undefined, problems: string[]): string {
  if (raw === undefined) return DEFAULT_SESSION_NAME;
  if (!/^[!-~]{1,40}$/.test(raw)) problems.push(`PGAPPNAME must be 1 to 40 visible ASCII characters without spaces (got "${raw}")`);
  return raw;
}

function isTerminal(): boolean {
  return process.stdout.isTTY === true;
}

/** `+15550000001=123456,+15550000002=654321` -> Map. Numbers must already be E.164. */
function parseTestNumbers(raw: string | undefined, problems: string[]): Map<string, string> {
  const numbers = new Map<string, string>();
  if (!raw) return numbers;
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = /^(\+[1-9]\d{6,14})=(\d{6})$/.exec(entry);
    if (!match) {
      problems.push(`OTP_TEST_NUMBERS entry "${entry}" must look like +15550000001=123456`);
      continue;
    }
    numbers.set(match[1], match[2]);
  }
  return numbers;
}

/** A Google service account, as its JSON key file has it. */
export interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri?: string;
}

/** The service account from FCM_SERVICE_ACCOUNT_JSON (the JSON itself) or the file GOOGLE_APPLICATION_CREDENTIALS names. */
export function readServiceAccount(json: string | undefined, file: string | undefined): ServiceAccount | undefined {
  const raw = json ?? (file ? readFileSync(file, 'utf8') : undefined);
  if (raw === undefined) return undefined;
  const account = JSON.parse(raw) as ServiceAccount;
  if (!account.project_id || !account.client_email || !account.private_key) {
    throw new Error('the service account needs project_id, client_email and private_key');
  }
  return account;
}
