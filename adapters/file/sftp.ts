import { createHash } from 'node:crypto';
import path from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import {
  checkFileName,
  checkInboxName,
  InsurerDeliveryError,
  partialName,
  stampedName,
  type InsurerExchange,
  type InsurerInbox,
} from './transport.js';

export interface SftpSettings {
  host: string;
  port: number;
  username: string;
  /** The OpenSSH private key we log in with (key auth only). */
  privateKey: string | Buffer;
  /** The server's host key as `ssh-keygen -lf` prints it: `SHA256:<base64>`. Any other key is refused. */
  hostKeySha256: string;
  /** The insurer's pick-up folder on the server; it must exist. */
  remoteDir: string;
  /** The insurer's folder its response files are read from (inbox operations need it). */
  remoteInboxDir?: string;
  readyTimeoutMs?: number;
}

/** `SHA256:<unpadded base64>` of a host key blob, the form OpenSSH prints. */
export const hostKeyFingerprint = (key: Buffer): string =>
  `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
]);

function classify(err: unknown, where: string): InsurerDeliveryError {
  const e = err as { code?: unknown; message?: unknown; level?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const code = typeof e.code === 'string' ? e.code : '';
  if (e.level === 'client-authentication' || /authentication methods failed/i.test(message)) {
    return new InsurerDeliveryError(`SFTP login to ${where} refused: ${message}`, false);
  }
  if (NETWORK_CODES.has(code) || /timed out|refused|reset|not connected|no response/i.test(message)) {
    return new InsurerDeliveryError(`SFTP server ${where} unavailable (will retry): ${message}`, true);
  }
  if (typeof e.code === 'number' || /no such file|permission denied/i.test(message)) {
    return new InsurerDeliveryError(`SFTP write to ${where} failed: ${message}`, false);
  }
  return new InsurerDeliveryError(`SFTP delivery to ${where} failed (will retry): ${message}`, true);
}

/**
 * Files to an insurer's SFTP server: key auth, host key pinned (a server presenting any other key
 * is refused before we authenticate). One connection per delivery: a cut-off sends a few files a
 * day, and a fresh connection has no stale state after the server restarts.
 */
export function sftpTransport(s: SftpSettings): InsurerExchange {
  const where = `${s.host}:${s.port}`;
  return {
    ...sftpInbox(s),
    destination: `sftp://${s.username}@${where}${path.posix.resolve('/', s.remoteDir)}`,
    async deliver(fileName, content) {
      checkFileName(fileName);
      await session(s, 'delivery', async (client) => {
        const partial = path.posix.join(s.remoteDir, partialName(fileName));
        await client.put(content, partial);
        // OpenSSH's posix-rename replaces an existing file atomically: a re-delivery overwrites.
        await client.posixRename(partial, path.posix.join(s.remoteDir, fileName));
      });
    },
  };
}

/**
 * One connection for one delivery or inbox operation, the host key pinned (a server presenting any
 * other key is refused before we authenticate); failures classified as retryable or not.
 */
async function session<T>(
  s: SftpSettings,
  purpose: 'delivery' | 'inbox',
  work: (client: SftpClient) => Promise<T>,
): Promise<T> {
  const where = `${s.host}:${s.port}`;
  const client = new SftpClient(`insurer-${purpose}`);
  let presented: string | null = null;
  try {
    await client.connect({
      host: s.host,
      port: s.port,
      username: s.username,
      privateKey: s.privateKey,
      readyTimeout: s.readyTimeoutMs ?? 15_000,
      hostVerifier: (key: Buffer) => {
        presented = hostKeyFingerprint(key);
        return presented === s.hostKeySha256;
      },
    });
    return await work(client);
  } catch (err) {
    if (err instanceof InsurerDeliveryError) throw err;
    if (presented !== null && presented !== s.hostKeySha256) {
      throw new InsurerDeliveryError(
        `SFTP server ${where} presented host key ${presented as string}, not the pinned ${s.hostKeySha256}: refused`,
        false,
      );
    }
    const failed = classify(err, where);
    if (purpose === 'delivery') throw failed;
    throw new InsurerDeliveryError(
      failed.message.replace(/SFTP (write to|delivery to)/, 'SFTP inbox at'),
      failed.retryable,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The insurer's inbox on its SFTP server (`remote_inbox_dir`, which must exist), read over one
 * connection per operation. A move is the server's rename, after checking the target is free.
 */
function sftpInbox(s: SftpSettings): InsurerInbox {
  const dir = s.remoteInboxDir === undefined ? null : path.posix.resolve('/', s.remoteInboxDir);
  const inboxDir = (): string => {
    if (dir === null) throw new InsurerDeliveryError('no remote inbox folder configured', false);
    return s.remoteInboxDir!;
  };
  const folder = (f: string) => (f === 'inbox' ? inboxDir() : path.posix.join(inboxDir(), f));
  return {
    inbox: `sftp://${s.username}@${s.host}:${s.port}${dir ?? ''}`,
    listInbox: () =>
      session(s, 'inbox', async (client) => {
        const entries = await client.list(inboxDir());
        return entries
          .filter((e) => e.type === '-' && !e.name.startsWith('.'))
          .map((e) => ({ name: e.name, modifiedAt: new Date(e.modifyTime) }))
          .sort((a, b) => a.name.localeCompare(b.name));
      }),
    readInboxFile: (from, name) =>
      session(s, 'inbox', async (client) => {
        checkInboxName(name);
        const file = path.posix.join(folder(from), name);
        if ((await client.exists(file)) !== '-') return null;
        return (await client.get(file)) as Buffer;
      }),
    moveInboxFile: (name, to) =>
      session(s, 'inbox', async (client) => {
        checkInboxName(name);
        const target = folder(to);
        if (!(await client.exists(target))) await client.mkdir(target, true);
        const free = !(await client.exists(path.posix.join(target, name)));
        const as = free ? name : stampedName(name, new Date());
        await client.rename(path.posix.join(inboxDir(), name), path.posix.join(target, as));
        return as;
      }),
  };
}
