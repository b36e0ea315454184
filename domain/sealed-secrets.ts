import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets we must be able to use again (webhook signing secrets) sealed at rest with AES-256-GCM
 * under a key from configuration, so a copy of the database is not a copy of every client's signing
 * secret. Stored as `enc:v1:<kid>:<iv>:<ciphertext+tag>` (base64url); the key id lets keys rotate:
 * the first key seals, every listed key opens. The kid is bound as associated data.
 */
export interface SealingKey {
  kid: string;
  key: Buffer;
}

const PREFIX = 'enc:v1:';

export class SealedSecretError extends Error {}

export function sealSecret(plain: string, keys: readonly SealingKey[]): string {
  const [current] = keys;
  if (!current) throw new SealedSecretError('no sealing key configured');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', current.key, iv);
  cipher.setAAD(Buffer.from(current.kid));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${PREFIX}${current.kid}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
}

export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

/** Opens a sealed secret; a value stored before sealing existed is returned as it is. */
export function openSecret(stored: string, keys: readonly SealingKey[]): string {
  if (!isSealed(stored)) return stored;
  const [kid = '', ivText = '', sealedText = ''] = stored.slice(PREFIX.length).split(':');
  const entry = keys.find((k) => k.kid === kid);
  if (!entry) throw new SealedSecretError(`sealed with key "${kid}", which is not configured`);
  const sealed = Buffer.from(sealedText, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(ivText, 'base64url'));
  decipher.setAAD(Buffer.from(kid));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  try {
    return Buffer.concat([
      decipher.update(sealed.subarray(0, sealed.length - 16)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SealedSecretError(`a secret sealed with key "${kid}" does not open (altered, or another key)`);
  }
}

/** True when the value is not sealed with the current (first) key: `webhook:reseal` rewrites it. */
export const needsResealing = (stored: string, keys: readonly SealingKey[]): boolean =>
  !stored.startsWith(`${PREFIX}${keys[0]?.kid ?? ''}:`);
