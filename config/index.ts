import path from 'node:path';
import { z } from 'zod';

const signingKey = z.object({ kid: z.string().min(1), secret: z.string().min(32) });

/** Signing keys arrive as `kid:secret,kid2:secret2`; the first one signs, all of them verify (D3). */
const signingKeys = z
  .string()
  .min(1)
  .transform((raw, ctx) => {
    const keys = raw.split(',').map((pair) => {
      const at = pair.indexOf(':');
      return { kid: pair.slice(0, at).trim(), secret: pair.slice(at + 1).trim() };
    });
    for (const key of keys) {
      const parsed = signingKey.safeParse(key);
      if (!parsed.success) {
        ctx.addIssue({
          code: 'custom',
          message: 'each key must be kid:secret with a secret of 32+ characters',
        });
        return z.NEVER;
      }
    }
    return keys;
  });

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  BASE_URL: z.url().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DATA_DIR: z.string().default('.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('group-health'),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  TEMPORAL_DEV_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  JWT_SIGNING_KEYS: signingKeys.default([
    { kid: 'dev-1', secret: 'development-only-signing-key-change-me-0001' },
  ]),
  JWT_ISSUER: z.string().min(1).default('group-health-admin'),
  JWT_AUDIENCE: z.string().min(1).default('group-health-api'),
  LINK_SIGNING_KEY: z.string().min(32).default('development-only-link-signing-key-change-me'),
  PAYLOAD_ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit key)')
    .optional(),
  ENDORSEMENT_STUCK_AFTER: z
    .string()
    .regex(/^\d+\s*(ms|s|m|h|d)$/, 'must be a duration such as 7d')
    .default('7d'),
  SIMULATED_INSURER_DELAY_MS: z.coerce.number().int().min(0).default(2000),
  /** GET /metrics on the API port; with METRICS_TOKEN set it needs `Authorization: Bearer <token>`. */
  METRICS_ENABLED: bool.default(true),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** The worker's Temporal SDK metrics (Prometheus) listen here; 0 turns them off. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Worker tuning (0: derived from DATABASE_POOL_MAX). */
  WORKER_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(0).max(1000).default(0),
  WORKER_WORKFLOW_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(40),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100000).default(1000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** Webhook retries: the first delay, doubled per attempt up to the maximum, jittered, for 24 h. */
  WEBHOOK_RETRY_INITIAL_MS: z.coerce.number().int().min(10).default(10_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(10).default(3_600_000),
});

export type Config = z.infer<typeof configSchema> & { baseUrl: string; dataDir: string };

export class ConfigError extends Error {}

/** Reads the environment once; a bad value stops the start with the variable named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const cfg = parsed.data;
  if (cfg.NODE_ENV === 'production') {
    const usesDevKey = cfg.JWT_SIGNING_KEYS.some((k) => k.secret.startsWith('development-only'));
    if (usesDevKey || cfg.LINK_SIGNING_KEY.startsWith('development-only')) {
      throw new ConfigError(
        'Invalid configuration:\n  JWT_SIGNING_KEYS/LINK_SIGNING_KEY: must be set in production',
      );
    }
  }
  return {
    ...cfg,
    baseUrl: (cfg.BASE_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/$/, ''),
    dataDir: path.resolve(cfg.DATA_DIR),
  };
}
