import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** D10 / spec 8: a pre-signed link is good for one hour from when it was handed out. */
export const LINK_TTL_SECONDS = 3600;

const EXPIRES = /^[1-9]\d{0,11}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

export type LinkCheck = { ok: true } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

/**
 * Signs and checks pre-signed links. The HMAC key is derived from the configured secret for this one
 * purpose, so the same LINK_SIGNING_KEY can also seal paging cursors without one MAC standing for another.
 */
export function linkSigner(secret: string) {
  const key = Buffer.from(hkdfSync('sha256', secret, 'signed-links', 'health-card-link/v1', 32));
  // `boundTo` ties a link to state that ends it when it changes (the client's secret version).
  const mac = (method: string, path: string, expires: number, boundTo: string): Buffer =>
    createHmac('sha256', key).update(`${method}\n${path}\n${expires}\n${boundTo}`).digest();

  return {
    /** `path?expires=…&signature=…`, valid for `ttl` seconds from `now`; nothing personal is encoded. */
    sign(method: string, path: string, now: Date, boundTo = '', ttl = LINK_TTL_SECONDS): string {
      const expires = Math.floor(now.getTime() / 1000) + ttl;
      return `${path}?expires=${expires}&signature=${mac(method, path, expires, boundTo).toString('hex')}`;
    },

    /**
     * Checks the raw query string exactly: `expires` and `signature` once each and nothing else, so a
     * repeated, extra or missing parameter is refused rather than guessed at. Compared in constant time.
     */
    verify(method: string, path: string, rawQuery: string, now: Date, boundTo = ''): LinkCheck {
      const params = parseExact(rawQuery);
      if (!params) return { ok: false, reason: 'malformed' };
      const expires = Number(params.expires);
      const given = Buffer.from(params.signature, 'hex');
      const expected = mac(method, path, expires, boundTo);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { ok: false, reason: 'signature' };
      }
      if (Math.floor(now.getTime() / 1000) > expires) return { ok: false, reason: 'expired' };
      return { ok: true };
    },
  };
}

export type LinkSigner = ReturnType<typeof linkSigner>;

/** `expires=<digits>&signature=<64 hex>` in either order, each exactly once, nothing else. */
function parseExact(rawQuery: string): { expires: string; signature: string } | null {
  const parts = rawQuery.split('&');
  if (parts.length !== 2) return null;
  const seen = new Map<string, string>();
  for (const part of parts) {
    const at = part.indexOf('=');
    if (at <= 0) return null;
    const name = part.slice(0, at);
    if (seen.has(name)) return null;
    seen.set(name, part.slice(at + 1));
  }
  const expires = seen.get('expires');
  const signature = seen.get('signature');
  if (expires === undefined || signature === undefined) return null;
  if (!EXPIRES.test(expires) || !SIGNATURE.test(signature)) return null;
  return { expires, signature };
}
