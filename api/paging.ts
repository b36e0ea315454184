import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import { z } from 'zod';
import { InvalidCursor, type CursorCodec, type Page } from '../data/paging.js';
import { validationError } from './errors.js';

export type { CursorCodec, Page, PageRequest } from '../data/paging.js';

/**
 * Keyset paging (D5). A cursor is the sort key of one row, sealed with AES-256-GCM: opaque (a member
 * cursor holds an employee name, which must not sit readable in URLs and proxy logs), tamper-evident,
 * and bound to one list of one tenant through the AAD, so a cursor of another list or client is a 400.
 * The IV is derived from the content (SIV style), so one row always yields the same cursor.
 */

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
const LIMIT_RULE = `must be an integer from 1 to ${MAX_LIMIT}`;
const MAX_CURSOR_LENGTH = 2048;

// ---------------------------------------------------------------------------------------- cursors

export function cursorCodec(secret: string): CursorCodec {
  const derive = (label: string) =>
    Buffer.from(hkdfSync('sha256', secret, '', `paging-cursor/v1/${label}`, 32));
  const encKey = derive('enc');
  const ivKey = derive('iv');
  const seal = (scope: string, text: string) => {
    const plain = Buffer.from(text);
    const aad = Buffer.from(scope);
    const iv = createHmac('sha256', ivKey).update(aad).update('\0').update(plain).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', encKey, iv).setAAD(aad);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  };
  // The same row always seals to the same cursor, and the same pages are read again and again (every
  // caller polling page 1 gets its two cursors), so recent cursors are kept rather than sealed anew.
  const sealed = new RecentValues<string>(CURSOR_CACHE_SIZE);
  return {
    encode(scope, key) {
      const id = `${scope}\0${JSON.stringify(key)}`;
      return sealed.get(id) ?? sealed.put(id, seal(scope, id.slice(scope.length + 1)));
    },
    decode(scope, cursor) {
      const raw = Buffer.from(cursor, 'base64url');
      // Canonical encoding only: otherwise a changed padding bit would decode to the same bytes.
      if (raw.length < 29 || raw.toString('base64url') !== cursor) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', encKey, raw.subarray(0, 12));
        decipher.setAAD(Buffer.from(scope)).setAuthTag(raw.subarray(12, 28));
        const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
        const key: unknown = JSON.parse(plain.toString('utf8'));
        return Array.isArray(key) ? key : null;
      } catch {
        return null;
      }
    },
  };
}

/** Cursors kept per codec: a few hundred KiB at most. */
const CURSOR_CACHE_SIZE = 2048;

/** A bounded map of recent values: when full, the oldest half is dropped. */
class RecentValues<V> {
  private readonly values = new Map<string, V>();
  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  put(key: string, value: V): V {
    if (this.values.size >= this.size) {
      let drop = this.size / 2;
      for (const old of this.values.keys()) {
        if (drop-- <= 0) break;
        this.values.delete(old);
      }
    }
    this.values.set(key, value);
    return value;
  }
}

const codecs = new WeakMap<object, CursorCodec>();

/**
 * The codec of one app's configuration, derived once per config object (key derivation costs more
 * than sealing a page's cursors). Keys come from LINK_SIGNING_KEY under their own HKDF label, so a
 * cursor never verifies as a signed link; rotating that key retires outstanding cursors (400).
 */
export function cursorsFor(config: { LINK_SIGNING_KEY: string }): CursorCodec {
  let codec = codecs.get(config);
  if (!codec) codecs.set(config, (codec = cursorCodec(config.LINK_SIGNING_KEY)));
  return codec;
}

// ------------------------------------------------------------------------------- query parameters

const cursorParam = z
  .string({ error: 'must be given once' })
  .max(MAX_CURSOR_LENGTH, 'is not a valid cursor')
  // An empty cursor (e.g. the end_cursor of an empty page sent back) means "no cursor".
  .transform((v) => v || undefined)
  .optional()
  .meta({ description: 'An opaque cursor from a previous page (D5)' });

/** The paging query parameters (spec 4.13); spread into a route's query schema. */
export const pageQueryFields = {
  limit: z
    .string({ error: LIMIT_RULE })
    .regex(/^[0-9]{1,3}$/, LIMIT_RULE)
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_LIMIT, LIMIT_RULE)
    .optional()
    .transform((n) => n ?? DEFAULT_LIMIT)
    // Read from the query string as text; documented as the integer it stands for.
    .meta({
      type: 'integer',
      minimum: 1,
      maximum: MAX_LIMIT,
      default: DEFAULT_LIMIT,
      description: `Page size, 1 to ${MAX_LIMIT}; default ${DEFAULT_LIMIT}`,
    }),
  start_cursor: cursorParam,
  last_cursor: cursorParam,
};

/** D5: forward and backward at once is a 400; attach with `.superRefine(oneDirection)`. */
export function oneDirection(
  q: { start_cursor?: string | undefined; last_cursor?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (q.start_cursor && q.last_cursor) {
    ctx.addIssue({ code: 'custom', path: ['last_cursor'], message: 'cannot be combined with start_cursor' });
  }
}

/** A page read that answers a foreign or altered cursor as the client's 400 (D5). */
export async function withCursorErrors<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof InvalidCursor) throw validationError(err.message);
    throw err;
  }
}

/** The D5 paging fields of a list payload, from its page. */
export const pagingFields = (page: Page<unknown>) => ({
  total_count: page.total_count,
  start_cursor: page.start_cursor,
  end_cursor: page.end_cursor,
  has_previous: page.has_previous,
  has_next: page.has_next,
});
