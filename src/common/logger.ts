/**
 * JSON-lines logger. Authorization headers, tokens and codes are redacted wherever they appear
 * in a logged object; only the development message sender writes a code on purpose.
 */
import pino, { Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers.authorization',
        '*.authorization',
        '*.accessToken',
        '*.access_token',
        '*.verification_code',
        '*.verificationCode',
        '*.code',
        '*.token',
      ],
      censor: '[redacted]',
    },
  });
}
