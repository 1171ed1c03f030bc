/** loadConfig: defaults, every bad value named by its variable, production's refusals. */
import path from 'node:path';
import { Config, ConfigError, DEVELOPMENT_JWT_SECRET, DEVELOPMENT_TEST_NUMBERS, loadConfig } from '../src/config';

const STRONG_SECRET = 'a-production-secret-that-is-long-enough-0123456789';

/** A production environment that loads; each test removes or spoils one value. */
const production = (over: Record<string, string | undefined> = {}) => ({
  NODE_ENV: 'production',
  JWT_SECRET: STRONG_SECRET,
  DATABASE_URL: 'postgresql://app:secret@db.internal:5432/delivery',
  WHATSAPP_PHONE_NUMBER_ID: '1234567890',
  WHATSAPP_ACCESS_TOKEN: 'production-access-token',
  ...over,
});

/** The problems loadConfig reports for `env` (fails the test when it loads). */
function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    // The message lists every problem, one per line, for the operator reading stderr.
    for (const problem of configError.problems) expect(configError.message).toContain(problem);
    return configError.problems;
  }
  throw new Error(`expected loadConfig to refuse ${JSON.stringify(env)}`);
}

describe('loadConfig in development (nothing set)', () => {
  let config: Config;
  beforeAll(() => {
    config = loadConfig({});
  });

  it('listens on 0.0.0.0:3000 and logs at info', () => {
    expect(config.env).toBe('development');
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.logLevel).toBe('info');
  });

  it('writes codes to the log and knows the development test number +15550000001=123456', () => {
    expect(config.otp.sender).toBe('log');
    expect(config.otp.testNumbers.get('+15550000001')).toBe('123456');
    // Every development number (DEVELOPMENT_TEST_NUMBERS) is known, and nothing else.
    expect(config.otp.testNumbers.size).toBe(DEVELOPMENT_TEST_NUMBERS.split(',').length);
  });

  it('uses the embedded database in ./.data and the development secret', () => {
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toBe(path.resolve('.data'));
    expect(config.jwt.secret).toBe(DEVELOPMENT_JWT_SECRET);
  });

  it('keeps the documented limits', () => {
    expect(config.bodyLimit).toBe('100kb');
    expect(config.trustProxy).toBe(false);
    expect(config.otp).toMatchObject({ ttlSeconds: 300, maxAttempts: 5, resendCooldownSeconds: 60 });
    expect(config.orders.acceptTimeoutSeconds).toBe(600);
  });

  it('treats blank values as unset', () => {
    const blank = loadConfig({ PORT: '  ', OTP_SENDER: '', DATABASE_URL: '' });
    expect(blank.port).toBe(3000);
    expect(blank.otp.sender).toBe('log');
    expect(blank.databaseUrl).toBeUndefined();
  });

  it('has no test numbers outside development unless configured', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).otp.testNumbers.size).toBe(0);
    expect(loadConfig({ NODE_ENV: 'test' }).logLevel).toBe('silent');
  });
});

describe('loadConfig in production', () => {
  it('refuses to start without JWT_SECRET', () => {
    expect(problemsOf(production({ JWT_SECRET: undefined }))).toEqual(['JWT_SECRET is required in production (at least 32 characters)']);
  });

  it('refuses a JWT_SECRET shorter than 32 characters, and the development secret', () => {
    expect(problemsOf(production({ JWT_SECRET: 'short-secret' }))).toEqual(['JWT_SECRET must be at least 32 characters']);
    expect(problemsOf(production({ JWT_SECRET: DEVELOPMENT_JWT_SECRET }))).toEqual([
      'JWT_SECRET must not be the development secret in production',
    ]);
  });

  it('refuses OTP_SENDER=log', () => {
    expect(problemsOf(production({ OTP_SENDER: 'log' }))).toEqual(['OTP_SENDER=log writes codes to the log and is refused in production']);
  });

  it('refuses OTP_TEST_NUMBERS', () => {
    expect(problemsOf(production({ OTP_TEST_NUMBERS: '+15550000001=123456' }))).toEqual([
      'OTP_TEST_NUMBERS is a development feature and is refused in production',
    ]);
  });

  it('refuses to start without DATABASE_URL', () => {
    expect(problemsOf(production({ DATABASE_URL: undefined }))).toEqual([
      'DATABASE_URL is required in production (the embedded database is for development)',
    ]);
  });

  it('lists every problem at once', () => {
    const problems = problemsOf({ NODE_ENV: 'production', OTP_SENDER: 'log', OTP_TEST_NUMBERS: '+15550000001=123456' });
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/JWT_SECRET/);
    expect(problems.join('\n')).toMatch(/OTP_SENDER=log/);
    expect(problems.join('\n')).toMatch(/OTP_TEST_NUMBERS/);
    expect(problems.join('\n')).toMatch(/DATABASE_URL/);
  });

  it('loads a valid configuration, frozen', () => {
    const config = loadConfig(production({ PORT: '8080', LOG_LEVEL: 'warn', TRUST_PROXY: 'yes', PHONE_DEFAULT_COUNTRY: 'ma' }));
    expect(config).toMatchObject({
      env: 'production',
      port: 8080,
      logLevel: 'warn',
      trustProxy: { hops: 1 },
      databaseUrl: 'postgresql://app:secret@db.internal:5432/delivery',
      jwt: { secret: STRONG_SECRET },
      otp: { sender: 'whatsapp', defaultCountry: 'MA' },
      whatsapp: { phoneNumberId: '1234567890', accessToken: 'production-access-token', apiUrl: 'https://graph.facebook.com/v21.0' },
    });
    expect(config.otp.testNumbers.size).toBe(0);
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(config.port).toBe(8080);
  });
});

describe('loadConfig: bad values name their variable', () => {
  it.each(['abc', '3000.5', '-1', '65536'])('PORT=%s', (port) => {
    expect(problemsOf({ PORT: port })).toEqual([`PORT must be a whole number between 0 and 65535 (got "${port}")`]);
  });

  it('accepts PORT=0 (any free port)', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
  });

  it('a bad OTP_TEST_NUMBERS entry is named, the good ones are kept', () => {
    expect(problemsOf({ OTP_TEST_NUMBERS: '+15550000001=123456, 5550000002=222222' })).toEqual([
      'OTP_TEST_NUMBERS entry "5550000002=222222" must look like +15550000001=123456',
    ]);
    expect(problemsOf({ OTP_TEST_NUMBERS: '+15550000001=12345' })).toEqual([
      'OTP_TEST_NUMBERS entry "+15550000001=12345" must look like +15550000001=123456',
    ]);
    const two = loadConfig({ OTP_TEST_NUMBERS: '+15550000001=123456, +15550000002=222222' });
    expect([...two.otp.testNumbers]).toEqual([
      ['+15550000001', '123456'],
      ['+15550000002', '222222'],
    ]);
  });

  it.each(['MAR', 'M', '12'])('PHONE_DEFAULT_COUNTRY=%s', (country) => {
    const problems = problemsOf({ PHONE_DEFAULT_COUNTRY: country });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^PHONE_DEFAULT_COUNTRY /);
  });

  it('PGAPPNAME names the sessions (delivery by default); a name PostgreSQL would cut or alter is refused', () => {
    expect(loadConfig({}).database.sessionName).toBe('delivery');
    expect(loadConfig({ PGAPPNAME: 'bench-123' }).database.sessionName).toBe('bench-123');
    for (const name of ['two words', 'x'.repeat(41), 'café']) {
      expect(problemsOf({ PGAPPNAME: name })).toEqual([
        `PGAPPNAME must be 1 to 40 visible ASCII characters without spaces (got "${name}")`,
      ]);
    }
  });

  it('other variables: NODE_ENV, LOG_LEVEL, TRUST_PROXY, DATABASE_URL, REDIS_URL', () => {
    const problems = problemsOf({
      NODE_ENV: 'staging',
      LOG_LEVEL: 'loud',
      TRUST_PROXY: 'maybe',
      DATABASE_URL: 'mysql://db/app',
      REDIS_URL: 'not a url',
    });
    expect(problems).toHaveLength(5);
    for (const name of ['NODE_ENV', 'LOG_LEVEL', 'TRUST_PROXY', 'DATABASE_URL', 'REDIS_URL']) {
      expect(problems.filter((p) => p.startsWith(`${name} `))).toHaveLength(1);
    }
  });
});

describe('loadConfig: OTP_SENDER=whatsapp', () => {
  it('requires WHATSAPP_PHONE_NUMBER_ID and WHATSAPP_ACCESS_TOKEN', () => {
    expect(problemsOf({ OTP_SENDER: 'whatsapp' })).toEqual([
      'WHATSAPP_PHONE_NUMBER_ID is required when OTP_SENDER=whatsapp',
      'WHATSAPP_ACCESS_TOKEN is required when OTP_SENDER=whatsapp',
    ]);
    expect(problemsOf({ OTP_SENDER: 'whatsapp', WHATSAPP_PHONE_NUMBER_ID: '42' })).toEqual([
      'WHATSAPP_ACCESS_TOKEN is required when OTP_SENDER=whatsapp',
    ]);
  });

  it('is the production default, so production without the WhatsApp settings is refused', () => {
    const problems = problemsOf(production({ WHATSAPP_PHONE_NUMBER_ID: undefined, WHATSAPP_ACCESS_TOKEN: undefined }));
    expect(problems).toEqual([
      'WHATSAPP_PHONE_NUMBER_ID is required when OTP_SENDER=whatsapp',
      'WHATSAPP_ACCESS_TOKEN is required when OTP_SENDER=whatsapp',
    ]);
  });

  it('loads with both set, and with a custom API URL', () => {
    const config = loadConfig({
      OTP_SENDER: 'whatsapp',
      WHATSAPP_PHONE_NUMBER_ID: '42',
      WHATSAPP_ACCESS_TOKEN: 'token',
      WHATSAPP_API_URL: 'http://127.0.0.1:9999/v21.0',
    });
    expect(config.otp.sender).toBe('whatsapp');
    expect(config.whatsapp).toMatchObject({ phoneNumberId: '42', accessToken: 'token', apiUrl: 'http://127.0.0.1:9999/v21.0' });
    expect(
      problemsOf({ OTP_SENDER: 'whatsapp', WHATSAPP_PHONE_NUMBER_ID: '42', WHATSAPP_ACCESS_TOKEN: 't', WHATSAPP_API_URL: 'ftp://x' }),
    ).toEqual(['WHATSAPP_API_URL must be a URL starting with http: or https:']);
  });
});

describe('payments configuration', () => {
  const keys = {
    STRIPE_SECRET_KEY: 'sk_test_abc123',
    STRIPE_PUBLISHABLE_KEY: 'pk_test_abc123',
    STRIPE_WEBHOOK_SECRET: 'whsec_abc123',
  };

  it('offers cash only by default, in dirhams', () => {
    expect(loadConfig({}).payments).toEqual({ currency: 'mad', stripe: undefined, reconcileAfterSeconds: 900, reconcileEverySeconds: 60 });
  });

  it('turns cards on with the three keys, and reads the API address and limits', () => {
    const config = loadConfig({ ...keys, STRIPE_API_URL: 'http://127.0.0.1:12111', PAYMENT_CURRENCY: 'EUR', STRIPE_TIMEOUT_MS: '5000' });
    expect(config.payments).toEqual({
      currency: 'eur',
      stripe: {
        secretKey: 'sk_test_abc123',
        publishableKey: 'pk_test_abc123',
        webhookSecret: 'whsec_abc123',
        apiUrl: 'http://127.0.0.1:12111',
        timeoutMs: 5000,
        maxNetworkRetries: 2,
        webhookToleranceSeconds: 300,
      },
      reconcileAfterSeconds: 900,
      reconcileEverySeconds: 60,
    });
  });

  it('production refuses a partial Stripe configuration, naming what is missing', () => {
    expect(problemsOf(production({ STRIPE_SECRET_KEY: keys.STRIPE_SECRET_KEY }))).toEqual([
      'Stripe is partly configured: STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET missing (set all three keys, or none to offer cash only)',
    ]);
    expect(loadConfig(production(keys)).payments.stripe?.secretKey).toBe('sk_test_abc123');
    // Outside production a partial set just leaves cards off.
    expect(loadConfig({ STRIPE_SECRET_KEY: keys.STRIPE_SECRET_KEY }).payments.stripe).toBeUndefined();
  });

  it('names keys that are not Stripe keys, and a bad currency', () => {
    expect(problemsOf({ ...keys, STRIPE_SECRET_KEY: 'pk_test_wrong', PAYMENT_CURRENCY: 'dirham' })).toEqual([
      'PAYMENT_CURRENCY must be a three-letter ISO 4217 code such as MAD or EUR',
      'STRIPE_SECRET_KEY does not look like a Stripe key (^(sk|rk)_(test|live)_\\w+$)',
    ]);
  });
});

describe('loadConfig: logs and GraphiQL', () => {
  const withTerminal = <T>(tty: boolean, run: () => T): T => {
    const before = process.stdout.isTTY;
    process.stdout.isTTY = tty;
    try {
      return run();
    } finally {
      process.stdout.isTTY = before;
    }
  };

  it('LOG_FORMAT=auto: pretty at a terminal, JSON into a pipe or file, JSON in production always', () => {
    expect(withTerminal(true, () => loadConfig({}).logFormat)).toBe('pretty');
    expect(withTerminal(false, () => loadConfig({}).logFormat)).toBe('json');
    expect(withTerminal(true, () => loadConfig(production()).logFormat)).toBe('json');
    expect(withTerminal(true, () => loadConfig({ LOG_FORMAT: 'json' }).logFormat)).toBe('json');
    expect(withTerminal(false, () => loadConfig({ LOG_FORMAT: 'pretty' }).logFormat)).toBe('pretty');
  });

  it('LOG_FORMAT=pretty is refused in production, and unknown formats everywhere', () => {
    expect(problemsOf(production({ LOG_FORMAT: 'pretty' }))).toEqual(['LOG_FORMAT=pretty is refused in production: logs are JSON there']);
    expect(problemsOf({ LOG_FORMAT: 'fancy' })).toEqual(['LOG_FORMAT must be one of auto, json, pretty (got "fancy")']);
  });

  it('GraphiQL is on except in production, where GRAPHIQL_ENABLED=true turns it on', () => {
    expect(loadConfig({}).graphiql).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).graphiql).toBe(true);
    expect(loadConfig({ GRAPHIQL_ENABLED: 'false' }).graphiql).toBe(false);
    expect(loadConfig(production()).graphiql).toBe(false);
    expect(loadConfig(production({ GRAPHIQL_ENABLED: 'true' })).graphiql).toBe(true);
    expect(problemsOf({ GRAPHIQL_ENABLED: 'sometimes' })).toEqual(['GRAPHIQL_ENABLED must be true or false (got "sometimes")']);
  });
});
