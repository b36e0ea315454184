import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

/** One AES-256 key with the id stored beside every payload it seals, so keys can rotate. */
export interface PayloadKey {
  kid: string;
  key: Buffer;
}

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const ProtoPayload = proto.temporal.api.common.v1.Payload;
const text = (value: string): Uint8Array => Buffer.from(value, 'utf8');

/** A payload whose key id no configured key matches: named, so the operator knows which key to add back. */
export class UnknownPayloadKeyError extends Error {
  constructor(readonly kid: string) {
    super(`payload encrypted with key id "${kid}", which is not in PAYLOAD_ENCRYPTION_KEYS`);
    this.name = 'UnknownPayloadKeyError';
  }
}

/**
 * AES-256-GCM over the whole serialized payload (data and metadata), a fresh 12-byte IV each time; the
 * key id is authenticated too (additional data), so swapping it on a stored payload fails the tag. The
 * first key seals, every key opens: a new key goes first, the old ones stay until no history needs them.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly byKid: Map<string, Buffer>;

  constructor(private readonly keys: readonly PayloadKey[]) {
    if (keys.length === 0) throw new Error('at least one payload encryption key is required');
    for (const { kid, key } of keys) {
      if (key.length !== 32) throw new Error(`payload key "${kid}" must be 256 bits`);
    }
    this.byKid = new Map(keys.map(({ kid, key }) => [kid, key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { kid, key } = this.keys[0]!;
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(text(kid));
      const plain = ProtoPayload.encode(payload).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: text(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text(kid) },
        data: sealed,
      };
    });
  }

  /** Payloads written before encryption (no encrypted encoding) pass through unchanged. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.open(payload));
  }

  private open(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    if (!encoding || Buffer.from(encoding).toString('utf8') !== ENCRYPTED_ENCODING) return payload;
    const rawKid = payload.metadata?.[KEY_ID_METADATA];
    const kid = rawKid ? Buffer.from(rawKid).toString('utf8') : '';
    const key = this.byKid.get(kid);
    if (!key) throw new UnknownPayloadKeyError(kid);
    const sealed = Buffer.from(payload.data ?? new Uint8Array());
    const iv = sealed.subarray(0, IV_BYTES);
    const tag = sealed.subarray(sealed.length - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(text(kid));
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return ProtoPayload.decode(plain);
  }
}
