import { readFile } from 'node:fs/promises';
import type { FileAdapterSettings } from '../../domain/insurer-exchange/adapter-settings.js';
import { localTransport } from './local.js';
import { sftpTransport } from './sftp.js';
import { InsurerDeliveryError, type InsurerExchange } from './transport.js';

/**
 * The transport a file insurer's settings (D14, validated at load) name, both ways: deliveries to
 * its outbox, response files from its inbox. An SFTP key is read from its
 * file when the transport is made: the key itself never sits in reference data.
 */
export async function transportFor(
  settings: FileAdapterSettings,
  where: { dataDir: string; insurerCode: string },
): Promise<InsurerExchange> {
  const t = settings.transport;
  if (t.type === 'local') return localTransport(where.dataDir, where.insurerCode);
  return sftpTransport({
    host: t.host,
    port: t.port,
    username: t.username,
    privateKey: await readFile(t.private_key_path).catch((err: NodeJS.ErrnoException) => {
      throw new InsurerDeliveryError(
        `SFTP private key ${t.private_key_path} unreadable (${err.code})`,
        false,
      );
    }),
    hostKeySha256: t.host_key_fingerprint,
    remoteDir: t.remote_outbox_dir,
    remoteInboxDir: t.remote_inbox_dir,
  });
}
