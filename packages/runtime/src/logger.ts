import { Writable } from 'node:stream';
import winston from 'winston';

const REDACTED = '[redacted]';
/** Keys whose values never reach a log line, whoever logs them (design: redaction lives in the logger). */
const SECRET_KEY =
  /^(authorization|token|api_?token|rawtoken|cookie|set-cookie|password|secret|rl_token|x-rolelink-token)$/i;
const TOKEN_IN_TEXT = /\brl_[A-Za-z0-9]{8,}/g;

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(TOKEN_IN_TEXT, 'rl_' + REDACTED);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? REDACTED : scrub(v, depth + 1);
  return out;
}

const redact = winston.format((info) => {
  for (const key of Object.keys(info)) {
    (info as Record<string, unknown>)[key] = SECRET_KEY.test(key) ? REDACTED : scrub(info[key]);
  }
  return info;
});

export type Logger = winston.Logger;

/** `level` is the service's LOG_LEVEL (envFields.logLevel): less severe lines are dropped. */
export function createLogger(
  service: string,
  level = 'info',
  transport: winston.transport = new winston.transports.Console({ stderrLevels: ['error', 'warn'] }),
): Logger {
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(
      redact(),
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      winston.format.json(),
    ),
    transports: [transport],
  });
}

export type LogLine = { level: string; message: string; [field: string]: unknown };

/**
 * A logger with the services' format (redaction included) that keeps its lines in memory, parsed:
 * tests assert on exactly what operators would read.
 */
export function memoryLogger(service = 'test', level = 'debug'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      for (const text of String(chunk).split('\n')) if (text.trim()) lines.push(JSON.parse(text) as LogLine);
      callback();
    },
  });
  return { logger: createLogger(service, level, new winston.transports.Stream({ stream })), lines };
}

/** A logger that drops everything: for tests and CLI runs that print their own output. */
export function silentLogger(): Logger {
  return winston.createLogger({ silent: true, transports: [new winston.transports.Console({ silent: true })] });
}

export { scrub as redactForLog };
