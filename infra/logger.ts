import pino, { type Logger } from 'pino';

/**
 * Personal data never reaches the logs: request bodies are not logged, and these paths are redacted
 * wherever a log call passes an object that carries them.
 */
const REDACT = [
  'authorization',
  'req.headers.authorization',
  'headers.authorization',
  '*.client_secret',
  'client_secret',
  '*.access_token',
  'access_token',
  'token',
  '*.name',
  '*.email',
  '*.phone_number',
  '*.personal_email',
  '*.personal_phone_number',
  '*.date_of_birth',
  '*.address',
  'body',
  '*.body',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined }, destination);
}

export type { Logger };
