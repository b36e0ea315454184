import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { FILE_FORMATS } from '../../domain/insurer-file.js';
import { localTransport } from './local.js';
import { sftpTransport } from './sftp.js';
import { FILE_TEMPLATE_NAMES } from './templates/index.js';
import { InsurerDeliveryError, type InsurerFileTransport } from './transport.js';

const text = (max: number) => z.string().trim().min(1).max(max);

const sftpSettings = z.strictObject({
  kind: z.literal('sftp'),
  host: text(253),
  port: z.number().int().min(1).max(65535).default(22),
  username: text(64),
  /** A path to the OpenSSH private key: the key itself never sits in reference data. */
  private_key_file: text(1000),
  /** The insurer's host key as `ssh-keygen -lf` prints it; any other key is refused. */
  host_key_sha256: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'must be SHA256:<43 base64 characters>'),
  remote_dir: text(1000),
});

/**
 * A file insurer's exchange settings (D14): its template, the formats each cut-off writes, the
 * time zone that dates its files, and where files go (the local outbox by default).
 */
export const fileExchangeSettingsSchema = z.strictObject({
  template: z.enum(FILE_TEMPLATE_NAMES as [string, ...string[]]).default('generic'),
  formats: z
    .array(z.enum(FILE_FORMATS))
    .min(1)
    .refine((f) => new Set(f).size === f.length, 'each format once')
    .default(['xlsx']),
  time_zone: z
    .string()
    .refine((tz) => Intl.supportedValuesOf('timeZone').includes(tz) || tz === 'UTC', 'unknown time zone')
    .default('Asia/Kolkata'),
  transport: z
    .discriminatedUnion('kind', [z.strictObject({ kind: z.literal('local') }), sftpSettings])
    .default({
      kind: 'local',
    }),
});
export type FileExchangeSettings = z.infer<typeof fileExchangeSettingsSchema>;

/** The transport the settings name; an SFTP key is read from its file when the transport is made. */
export async function transportFor(
  settings: FileExchangeSettings,
  where: { dataDir: string; insurerCode: string },
): Promise<InsurerFileTransport> {
  const t = settings.transport;
  if (t.kind === 'local') return localTransport(where.dataDir, where.insurerCode);
  return sftpTransport({
    host: t.host,
    port: t.port,
    username: t.username,
    privateKey: await readFile(t.private_key_file).catch((err: NodeJS.ErrnoException) => {
      throw new InsurerDeliveryError(
        `SFTP private key ${t.private_key_file} unreadable (${err.code})`,
        false,
      );
    }),
    hostKeySha256: t.host_key_sha256,
    remoteDir: t.remote_dir,
  });
}
