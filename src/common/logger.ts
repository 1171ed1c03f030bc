/**
 * The logger. JSON lines by default (collectors, production); `pretty` gives a person at a
 * terminal one coloured line per record, a request reading `GET /healthz 200 1.2ms`.
 * Authorization headers, tokens and codes are redacted wherever they appear in a logged
 * object; only the development message sender writes a code on purpose.
 */
import pino, { Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };
export type LogFormat = 'json' | 'pretty';

const REDACT = [
  'req.headers.authorization',
  '*.authorization',
  '*.accessToken',
  '*.access_token',
  '*.verification_code',
  '*.verificationCode',
  '*.code',
  '*.token',
];

/** The request record's own fields, shown in its message rather than after it. */
const REQUEST_FIELDS = ['method', 'path', 'status', 'durationMs'];

/** `destination`: where records go (stdout by default; tests read them). */
export function createLogger(level: string, format: LogFormat = 'json', destination?: NodeJS.WritableStream): Logger {
  const options = { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime, redact: { paths: REDACT, censor: '[redacted]' } };
  if (format === 'json') return destination ? pino(options, destination) : pino(options);
  // An in-process stream, not a worker transport: records are written in order and nothing
  // is lost when the process exits.
  return pino(
    options,
    pretty({
      colorize: true,
      singleLine: true,
      ...(destination && { destination }),
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: REQUEST_FIELDS.join(','),
      messageFormat: (log, messageKey, _level, { colors }) => {
        const raw = log[messageKey];
        const message = typeof raw === 'string' ? raw : raw == null ? '' : JSON.stringify(raw);
        if (message !== 'request' || typeof log.method !== 'string') return message;
        const status = Number(log.status);
        const paint = status >= 500 ? colors.red : status >= 400 ? colors.yellow : colors.green;
        return `${colors.bold(String(log.method))} ${String(log.path)} ${paint(String(status))} ${Number(log.durationMs).toFixed(1)}ms`;
      },
    }),
  );
}
