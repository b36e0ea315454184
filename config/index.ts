import fs from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_SLA_DAYS } from '../domain/insurer-exchange/decisions.js';
import { DEFAULT_REINSTATEMENT_WINDOW_DAYS } from '../domain/endorsements/reinstatement.js';
import {
  DEFAULT_RENEWAL_AUTO_CONFIRM_DAYS,
  DEFAULT_RENEWAL_LEAD_DAYS,
} from '../domain/policy-year/renewal.js';

/** At least 256 bits of key material (D3): a shorter HMAC key is refused, not padded. */
const KEY_BYTES = 32;
const strongKey = z
  .string()
  .refine((key) => Buffer.byteLength(key) >= KEY_BYTES, `must be at least 256 bits (${KEY_BYTES} bytes)`);
const signingKey = z.object({ kid: z.string().min(1), secret: strongKey });

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
          message: `each key must be kid:secret with a secret of at least 256 bits (${KEY_BYTES} bytes)`,
        });
        return z.NEVER;
      }
    }
    return keys;
  });

/** `10.0.0.0/8, 192.168.1.7, fd00::/8`: addresses or CIDR blocks, checked one by one. */
const cidrList = z.string().transform((raw, ctx) => {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const max = isIPv4(address) ? 32 : isIPv6(address) ? 128 : 0;
    const okBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (max === 0 || !okBits || extra !== undefined) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not an IP address or CIDR block` });
      return z.NEVER;
    }
  }
  return entries;
});

/** `kid:<64 hex>[,kid2:<64 hex>]`: AES-256 keys; the first seals, every one opens (rotation). */
const sealingKeys = z.string().transform((raw, ctx) => {
  const keys = raw.split(',').map((pair) => {
    const at = pair.indexOf(':');
    return { kid: pair.slice(0, at).trim(), hex: pair.slice(at + 1).trim() };
  });
  if (keys.some((k) => !/^[A-Za-z0-9_.-]{1,32}$/.test(k.kid) || !/^[0-9a-fA-F]{64}$/.test(k.hex))) {
    ctx.addIssue({ code: 'custom', message: 'each key must be kid:<64 hex characters> (a 256-bit key)' });
    return z.NEVER;
  }
  return keys.map((k) => ({ kid: k.kid, key: Buffer.from(k.hex, 'hex') }));
});

const postgresUrl = z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL');

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  BASE_URL: z.url().optional(),
  /** The service's login (role gha_app): every request and activity, held to row-level security. */
  DATABASE_URL: postgresUrl.optional(),
  /** The login of cross-tenant work (role gha_system): its own pool, required with DATABASE_URL. */
  DATABASE_SYSTEM_URL: postgresUrl.optional(),
  /** The owner's login, for migrations and provisioning the two logins above; never for serving. */
  DATABASE_OWNER_URL: postgresUrl.optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DATA_DIR: z.string().default('.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('group-health'),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  TEMPORAL_DEV_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  /** Where operators open the Temporal Web UI (links printed by `ops stuck`); default: the local one. */
  TEMPORAL_UI_URL: z.string().url().optional(),
  /** mTLS to Temporal: PEM files of this process's client certificate and key, and of the server's CA. */
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_CA: z.string().min(1).optional(),
  /** The name the server's certificate must carry, when it differs from TEMPORAL_ADDRESS's host. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** `npm start`: the demo's API insurer sandbox on loopback (data/demo.yaml's DIGIT `base_url`). */
  INSURER_SANDBOX_PORT: z.coerce.number().int().min(1).max(65535).default(8790),
  /** `npm run cluster`: the front door of the local two-node cluster (its nodes take free ports). */
  TEMPORAL_CLUSTER_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  /** `npm run cluster`: its Web UI on loopback (not the dev server's 8233 nor the codec server's 8234). */
  TEMPORAL_CLUSTER_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8235),
  /** Required by the API (see apiConfig); `npm start` and the tests generate their own. */
  JWT_SIGNING_KEYS: signingKeys.optional(),
  JWT_ISSUER: z.string().min(1).default('group-health-admin'),
  JWT_AUDIENCE: z.string().min(1).default('group-health-api'),
  LINK_SIGNING_KEY: strongKey.optional(),
  /** Temporal payload keys `kid:<64 hex>[,kid2:…]`: the first encrypts, all decrypt (rotation). */
  PAYLOAD_ENCRYPTION_KEYS: sealingKeys.optional(),
  /** The earlier single key, still accepted: it becomes the key with id `default`. */
  PAYLOAD_ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit key)')
    .optional(),
  /** The codec server the Web UI decodes payloads through: loopback unless said otherwise. */
  CODEC_SERVER_HOST: z.string().min(1).default('127.0.0.1'),
  CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8234),
  CODEC_SERVER_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Browser origins (the Web UI's) allowed to call the codec server; default: the local UI. */
  CODEC_SERVER_UI_ORIGINS: z
    .string()
    .transform((raw) =>
      raw
        .split(',')
        .map((origin) => origin.trim().replace(/\/$/, ''))
        .filter(Boolean),
    )
    .optional(),
  ENDORSEMENT_STUCK_AFTER: z
    .string()
    .regex(/^\d+\s*(ms|s|m|h|d)$/, 'must be a duration such as 7d')
    .default('7d'),
  /** D14: an insurer's SLA from submission when its reference data names none; then EndorsementSlaBreached. */
  INSURER_SLA_DEFAULT: z
    .string()
    .regex(/^\d+\s*(ms|s|m|h|d)$/, 'must be a duration such as 14d')
    .default(`${DEFAULT_SLA_DAYS}d`),
  SIMULATED_INSURER_DELAY_MS: z.coerce.number().int().min(0).default(2000),
  /** D17: a policy term's renewal opens this many days before its end (the daily renewal pass). */
  RENEWAL_LEAD_DAYS: z.coerce.number().int().min(1).max(366).default(DEFAULT_RENEWAL_LEAD_DAYS),
  /** D17: an open renewal neither confirmed nor declined confirms itself this many days before the end. */
  RENEWAL_AUTO_CONFIRM_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(365)
    .default(DEFAULT_RENEWAL_AUTO_CONFIRM_DAYS),
  /** D17: a REINSTATEMENT is accepted up to this many days after the DELETION's last covered day. */
  REINSTATEMENT_WINDOW_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(366)
    .default(DEFAULT_REINSTATEMENT_WINDOW_DAYS),
  /** GET /metrics on its own port and address; with METRICS_TOKEN set it needs `Authorization: Bearer <token>`. */
  METRICS_ENABLED: bool.default(true),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9400),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** The worker's Temporal SDK metrics (Prometheus) listen here; 0 turns them off. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Worker tuning (0: derived from DATABASE_POOL_MAX). */
  WORKER_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(0).max(1000).default(0),
  WORKER_WORKFLOW_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(40),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100000).default(1000),
  /** Proxies whose X-Forwarded-For names the caller (token-request budgets); empty: none is trusted. */
  TRUSTED_PROXIES: cidrList.default([]),
  /** Failed token requests allowed per rolling hour per (client_id, source address) and per source (D4). */
  TOKEN_FAILURES_PER_CLIENT_SOURCE: z.coerce.number().int().min(1).default(10),
  TOKEN_FAILURES_PER_SOURCE: z.coerce.number().int().min(1).default(100),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** Seals webhook signing secrets at rest; required where they are written or used (see webhookSecretKeys). */
  WEBHOOK_SECRET_KEYS: sealingKeys.optional(),
  /** Webhook retries: the first delay, doubled per attempt up to the maximum, jittered, for 24 h. */
  WEBHOOK_RETRY_INITIAL_MS: z.coerce.number().int().min(10).default(10_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(10).default(3_600_000),
});

export type Config = z.infer<typeof configSchema> & { baseUrl: string; dataDir: string };

/** A TLS setting names what is missing beside it: a certificate without its key is a mistake, not plaintext. */
const TLS_PAIRS = [
  ['TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY'],
  ['TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CERT'],
] as const;

export class ConfigError extends Error {}

/**
 * The keys that seal webhook signing secrets, required by the worker (it signs deliveries) and by the
 * admin webhook commands; no default, like the API's signing keys.
 */
export function webhookSecretKeys(cfg: Config): { kid: string; key: Buffer }[] {
  if (!cfg.WEBHOOK_SECRET_KEYS) {
    throw new ConfigError(
      'Invalid configuration:\n  WEBHOOK_SECRET_KEYS: is required (kid:<64 hex characters>[,kid2:…]); npm start generates a local one',
    );
  }
  return cfg.WEBHOOK_SECRET_KEYS;
}

/**
 * The keys of Temporal payloads, required by every process that writes or reads them (API, worker,
 * operator commands): a process without them would write personal data in clear or fail to read.
 */
export function payloadEncryptionKeys(cfg: Config): { kid: string; key: Buffer }[] {
  if (cfg.PAYLOAD_ENCRYPTION_KEYS) return cfg.PAYLOAD_ENCRYPTION_KEYS;
  if (cfg.PAYLOAD_ENCRYPTION_KEY)
    return [{ kid: 'default', key: Buffer.from(cfg.PAYLOAD_ENCRYPTION_KEY, 'hex') }];
  throw new ConfigError(
    'Invalid configuration:\n  PAYLOAD_ENCRYPTION_KEYS: is required (kid:<64 hex characters>[,kid2:…]); npm start generates a local one',
  );
}

export interface TemporalTls {
  serverNameOverride?: string;
  serverRootCACertificate?: Buffer;
  clientCertPair?: { crt: Buffer; key: Buffer };
}

/**
 * The TLS every Temporal connection of this process uses (client, worker, commands): none unless a
 * TEMPORAL_TLS_* variable is set; with TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY it presents that client
 * certificate (mTLS), with TEMPORAL_TLS_CA it trusts only that CA for the server's certificate. The
 * files are read here, so a missing or unreadable one stops the start with the variable named.
 */
export function temporalTls(
  cfg: Pick<
    Config,
    'TEMPORAL_TLS_CERT' | 'TEMPORAL_TLS_KEY' | 'TEMPORAL_TLS_CA' | 'TEMPORAL_TLS_SERVER_NAME'
  >,
): TemporalTls | undefined {
  const { TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_CA: ca } = cfg;
  const serverName = cfg.TEMPORAL_TLS_SERVER_NAME;
  if (!cert && !key && !ca && !serverName) return undefined;
  const read = (variable: string, file: string): Buffer => {
    try {
      return fs.readFileSync(file);
    } catch (err) {
      throw new ConfigError(
        `Invalid configuration:\n  ${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }
  };
  return {
    ...(serverName ? { serverNameOverride: serverName } : {}),
    ...(ca ? { serverRootCACertificate: read('TEMPORAL_TLS_CA', ca) } : {}),
    ...(cert && key
      ? { clientCertPair: { crt: read('TEMPORAL_TLS_CERT', cert), key: read('TEMPORAL_TLS_KEY', key) } }
      : {}),
  };
}

/** The codec server's bearer token: no default, it hands out decrypted payloads. */
export function codecServerToken(cfg: Config): string {
  if (!cfg.CODEC_SERVER_TOKEN) {
    throw new ConfigError(
      'Invalid configuration:\n  CODEC_SERVER_TOKEN: is required (at least 32 characters); npm start generates a local one',
    );
  }
  return cfg.CODEC_SERVER_TOKEN;
}

/** The Temporal Web UI's page of one workflow (its latest run), for operators' links. */
/** The Temporal Web UI's address: TEMPORAL_UI_URL, else the local dev server's UI port. */
export function temporalUiBase(cfg: Config): string {
  return (cfg.TEMPORAL_UI_URL ?? `http://localhost:${cfg.TEMPORAL_UI_PORT}`).replace(/\/+$/, '');
}

export function workflowUiUrl(cfg: Config, workflowId: string): string {
  const base = temporalUiBase(cfg);
  const ns = encodeURIComponent(cfg.TEMPORAL_NAMESPACE);
  return `${base}/namespaces/${ns}/workflows/${encodeURIComponent(workflowId)}`;
}

/** The Web UI origins the codec server answers (CORS): configured, or the local UIs (dev server's, cluster's). */
export function codecServerOrigins(cfg: Config): string[] {
  return (
    cfg.CODEC_SERVER_UI_ORIGINS ??
    [cfg.TEMPORAL_UI_PORT, cfg.TEMPORAL_CLUSTER_UI_PORT].flatMap((port) => [
      `http://localhost:${port}`,
      `http://127.0.0.1:${port}`,
    ])
  );
}

/** What the API needs beyond the shared settings: its signing keys, never a default. */
export type ApiConfig = Config & {
  JWT_SIGNING_KEYS: { kid: string; secret: string }[];
  LINK_SIGNING_KEY: string;
};

/**
 * The API signs tokens, links and cursors, so it refuses to start without real keys, naming each
 * missing variable. There is no development key in the source: `npm start` generates local keys
 * once per DATA_DIR and the tests generate their own per run.
 */
export function apiConfig(cfg: Config): ApiConfig {
  const { JWT_SIGNING_KEYS: jwtKeys, LINK_SIGNING_KEY: linkKey } = cfg;
  const missing = [
    jwtKeys
      ? null
      : 'JWT_SIGNING_KEYS: is required (kid:secret[,kid2:secret2], secrets of at least 256 bits)',
    linkKey ? null : 'LINK_SIGNING_KEY: is required (at least 256 bits)',
  ].filter(Boolean);
  if (!jwtKeys || !linkKey) {
    throw new ConfigError(
      `Invalid configuration:\n  ${missing.join('\n  ')}\n  (npm start generates local keys; npm run api needs them set)`,
    );
  }
  return { ...cfg, JWT_SIGNING_KEYS: jwtKeys, LINK_SIGNING_KEY: linkKey };
}

/** Reads the environment once; a bad value stops the start with the variable named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const cfg = parsed.data;
  const unpaired = TLS_PAIRS.filter(([set, missing]) => cfg[set] && !cfg[missing]);
  if (unpaired.length > 0) {
    const lines = unpaired.map(([set, missing]) => `${missing}: is required with ${set} (mTLS to Temporal)`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const logins = databaseLoginProblems(cfg);
  if (logins.length > 0) throw new ConfigError(`Invalid configuration:\n  ${logins.join('\n  ')}`);
  return {
    ...cfg,
    baseUrl: (cfg.BASE_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/$/, ''),
    dataDir: path.resolve(cfg.DATA_DIR),
  };
}

/**
 * The three logins (docs/security/database-roles.md) go together and are three different users: the
 * service's and the system work's are set both or neither, and none may be another's, so a deploy
 * that points the service at the owner (or the system login) stops here with the variable named.
 */
function databaseLoginProblems(cfg: z.infer<typeof configSchema>): string[] {
  const { DATABASE_URL: app, DATABASE_SYSTEM_URL: system, DATABASE_OWNER_URL: owner } = cfg;
  const problems: string[] = [];
  if (system && !app) problems.push('DATABASE_URL: is required with DATABASE_SYSTEM_URL');
  if (app && !system)
    problems.push(
      'DATABASE_SYSTEM_URL: is required with DATABASE_URL (the login of cross-tenant work, role gha_system)',
    );
  const user = (url: string | undefined): string | null => {
    try {
      return url ? decodeURIComponent(new URL(url).username) : null;
    } catch {
      return null;
    }
  };
  const same = (a: string | undefined, b: string | undefined) => user(a) !== null && user(a) === user(b);
  if (same(app, owner))
    problems.push(
      "DATABASE_URL: must not log in as DATABASE_OWNER_URL's user (the service never runs as the owner)",
    );
  if (same(system, owner)) problems.push("DATABASE_SYSTEM_URL: must not log in as DATABASE_OWNER_URL's user");
  if (same(app, system))
    problems.push("DATABASE_SYSTEM_URL: must not log in as DATABASE_URL's user (two roles, two pools)");
  return problems;
}

/**
 * Migrates when this process holds the owner's login (DATABASE_OWNER_URL: `npm start`, a one-off
 * migrate step); otherwise the deploy migrated before starting it. The logins to provision are the
 * service's two URLs.
 */
export function ownerMigration(config: Config): { ownerUrl: string; loginUrls: string[] } | null {
  if (!config.DATABASE_OWNER_URL) return null;
  return {
    ownerUrl: config.DATABASE_OWNER_URL,
    loginUrls: [config.DATABASE_URL, config.DATABASE_SYSTEM_URL].filter((u): u is string => Boolean(u)),
  };
}

/** The service's two logins (`npm run api` / `worker` and the commands; npm start and the tests set them). */
export function requireDatabaseUrls(config: Config): { databaseUrl: string; systemDatabaseUrl: string } {
  if (!config.DATABASE_URL || !config.DATABASE_SYSTEM_URL)
    throw new ConfigError(
      'Invalid configuration:\n  DATABASE_URL and DATABASE_SYSTEM_URL: are required (npm start sets them for a local stack)',
    );
  return { databaseUrl: config.DATABASE_URL, systemDatabaseUrl: config.DATABASE_SYSTEM_URL };
}
