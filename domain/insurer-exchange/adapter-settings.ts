import { isIP } from 'node:net';
import { z } from 'zod';
import type { InsurerAdapterName } from '../enums.js';
import { FILE_FORMATS } from './file.js';
import { FILE_TEMPLATE_NAMES } from './file-templates/index.js';
import { describeIssues } from '../schemas/issues.js';

/**
 * Each insurer adapter's settings (D14): reference data loaded with the insurer (D12), validated
 * whole at load, stored in `insurers.adapter_settings` in the load file's spelling with every default
 * filled in, and read back through the same schemas. Every adapter has an SLA (`sla_days`).
 */

export const DEFAULT_SLA_DAYS = 14;

const slaDays = z
  .number({ error: 'must be a whole number of days' })
  .int('must be a whole number of days')
  .min(1, 'must be at least 1')
  .max(365, 'must be at most 365')
  .default(DEFAULT_SLA_DAYS);

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'is required')
    .max(max, `must be at most ${max} characters`);

export const simulatedAdapterSettings = z.strictObject({ sla_days: slaDays });
export const manualAdapterSettings = z.strictObject({ sla_days: slaDays });

// ------------------------------------------------------------------------------------------- file

/** Key auth only, the server's host key pinned by its OpenSSH SHA256 fingerprint. */
export const sftpTransportSettings = z.strictObject({
  type: z.literal('sftp'),
  host: text(253).regex(/^[A-Za-z0-9.:-]+$/, 'must be a host name or IP address'),
  port: z.number({ error: 'must be a port number' }).int().min(1).max(65535).default(22),
  username: text(100),
  private_key_path: text(1000),
  host_key_fingerprint: z
    .string({ error: 'must be a string' })
    .regex(/^SHA256:[A-Za-z0-9+/]{43}=?$/, 'must be an OpenSSH SHA256 fingerprint (SHA256:…)'),
  /** The insurer's folder our endorsement files are written to. */
  remote_outbox_dir: text(1000),
  /** The insurer's folder its response files are read from. */
  remote_inbox_dir: text(1000),
});

/** Folders `$DATA_DIR/insurers/<code>/outbox` and `…/inbox` on this machine (the demo's transport). */
export const localTransportSettings = z.strictObject({ type: z.literal('local') });

/**
 * A file insurer's exchange (D14): its template (domain/insurer-exchange/file-templates), the formats each
 * cut-off writes (one file per policy and format), where files go (the local outbox by default) and
 * the daily cut-off. File names carry the cut-off's date in Asia/Kolkata (D13).
 */
export const fileAdapterSettings = z.strictObject({
  template: z
    .enum(FILE_TEMPLATE_NAMES as [string, ...string[]], {
      error: `must be one of ${FILE_TEMPLATE_NAMES.join(', ')}`,
    })
    .default('generic'),
  formats: z
    .array(z.enum(FILE_FORMATS, { error: 'must be xlsx or csv' }), { error: 'must be a list of formats' })
    .min(1, 'must name at least one format')
    .refine((f) => new Set(f).size === f.length, 'must name each format once')
    .default(['xlsx']),
  transport: z
    .discriminatedUnion('type', [localTransportSettings, sftpTransportSettings], {
      error: 'must have type local or sftp',
    })
    .prefault({ type: 'local' }),
  /** The daily cut-off, Asia/Kolkata (D13). */
  cut_off_time: z
    .string({ error: 'must be a string' })
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM (24-hour, Asia/Kolkata)')
    .default('17:00'),
  sla_days: slaDays,
});

// -------------------------------------------------------------------------------------------- api

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);

/** 127.0.0.0/8, ::1 and `localhost`: the only hosts plain http may reach. */
export function isLoopbackHost(hostname: string): boolean {
  if (LOOPBACK_NAMES.has(hostname.toLowerCase())) return true;
  return isIP(hostname) === 4 && hostname.startsWith('127.');
}

/** https, or http to a loopback host (an insurer simulator on this machine); no credentials in it. */
const insurerApiUrl = z
  .string({ error: 'must be a string' })
  .max(2048, 'must be at most 2048 characters')
  .superRefine((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URL' });
      return;
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      ctx.addIssue({ code: 'custom', message: 'must be https (http only for a loopback host)' });
    }
    if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not carry credentials' });
    if (url.search || url.hash)
      ctx.addIssue({ code: 'custom', message: 'must not have a query or fragment' });
  })
  .transform((raw) => raw.replace(/\/+$/, ''));

export const apiAdapterSettings = z.strictObject({
  /** Submissions go to `<base_url>/endorsements`, withdrawals to `<base_url>/endorsements/<id>/withdrawal`. */
  base_url: insurerApiUrl,
  /**
   * The environment variable of the worker that holds the insurer's signing secret: the secret itself
   * is never in the load file or the database.
   */
  signing_secret_env: z
    .string({ error: 'must be a string' })
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must name an environment variable (A-Z, 0-9 and _)'),
  /** Each call's limit; below the activity's own timeout so a slow insurer fails as a timeout. */
  timeout_ms: z
    .number({ error: 'must be a number of milliseconds' })
    .int()
    .min(100, 'must be at least 100')
    .max(25_000, 'must be at most 25000')
    .default(10_000),
  sla_days: slaDays,
  /**
   * The insurer publishes its roster of covered members at `<base_url>/roster`: each of its active
   * policies is reconciled monthly on `day_of_month` (06:00 Asia/Kolkata), the roster read in
   * `template`'s roster layout (CSV). Absent: no scheduled reconciliation.
   */
  roster: z
    .strictObject({
      day_of_month: z
        .number({ error: 'must be a day of the month' })
        .int('must be a whole day of the month')
        .min(1, 'must be at least 1')
        .max(28, 'must be at most 28 (every month has it)'),
      template: z
        .enum(FILE_TEMPLATE_NAMES as [string, ...string[]], {
          error: `must be one of ${FILE_TEMPLATE_NAMES.join(', ')}`,
        })
        .default('generic'),
    })
    .optional(),
});

// ------------------------------------------------------------------------------------------ types

export type SimulatedAdapterSettings = z.output<typeof simulatedAdapterSettings>;
export type ManualAdapterSettings = z.output<typeof manualAdapterSettings>;
export type FileAdapterSettings = z.output<typeof fileAdapterSettings>;
export type SftpTransportSettings = z.output<typeof sftpTransportSettings>;
export type ApiAdapterSettings = z.output<typeof apiAdapterSettings>;

/** An insurer's adapter with its settings; `adapter` tells which settings they are. */
export type InsurerAdapterConfig =
  | { adapter: 'simulated'; adapterSettings: SimulatedAdapterSettings }
  | { adapter: 'manual'; adapterSettings: ManualAdapterSettings }
  | { adapter: 'file'; adapterSettings: FileAdapterSettings }
  | { adapter: 'api'; adapterSettings: ApiAdapterSettings };

export const ADAPTER_SETTINGS = {
  simulated: simulatedAdapterSettings,
  manual: manualAdapterSettings,
  file: fileAdapterSettings,
  api: apiAdapterSettings,
} as const satisfies Record<InsurerAdapterName, z.ZodType>;

export class StoredAdapterSettingsInvalid extends Error {}

/**
 * Reads an insurer's stored settings back through its adapter's schema. They were validated at load,
 * so a failure means the row was written by other means or under an older schema: the message names
 * the insurer and the field, never a value.
 */
export function storedAdapterConfig(
  insurerCode: string,
  adapter: InsurerAdapterName,
  stored: unknown,
): InsurerAdapterConfig {
  const parsed = ADAPTER_SETTINGS[adapter].safeParse(stored ?? {});
  if (!parsed.success) {
    throw new StoredAdapterSettingsInvalid(
      `insurer ${insurerCode}: stored ${adapter} settings are invalid: ${describeIssues(parsed.error.issues, stored)}`,
    );
  }
  return { adapter, adapterSettings: parsed.data } as InsurerAdapterConfig;
}
