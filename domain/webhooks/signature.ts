import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures: `Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` over
 * `<t>.<raw body>`, keyed with the endpoint's whole secret string (`whsec_…`) as UTF-8. The
 * timestamp is signed with the body, so a receiver that checks its age rejects replays.
 */
export const SIGNATURE_HEADER = 'Webhook-Signature';
export const ID_HEADER = 'Webhook-Id';
/** Receivers should reject signatures older than this (issue: 5 minutes). */
export const DEFAULT_TOLERANCE_S = 300;

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

const hmac = (secret: string, t: number, body: string): string =>
  createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');

/** The header value for `body` sent at `t` (unix seconds). */
export function signWebhook(secret: string, body: string, t: number): string {
  return `t=${t},v1=${hmac(secret, t, body)}`;
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'malformed' | 'mismatch' | 'too_old' };

/**
 * A receiver's check (exported for receivers written in TypeScript and for the tests): the header
 * parses, one of its v1 values matches in constant time, and its timestamp lies within the
 * tolerance of `now` (unix seconds) either way. Several v1 values are accepted for a receiver
 * that is rotating secrets.
 */
export function verifyWebhook(
  secret: string,
  body: string,
  header: string | undefined,
  now: number,
  toleranceS = DEFAULT_TOLERANCE_S,
): VerifyResult {
  const parts = (header ?? '').split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  const candidates = parts.filter(([k, v]) => k === 'v1' && v && /^[0-9a-f]{64}$/.test(v)).map(([, v]) => v!);
  if (!Number.isSafeInteger(t) || candidates.length === 0) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(hmac(secret, t, body), 'hex');
  const matches = candidates.some((v) => timingSafeEqual(Buffer.from(v, 'hex'), expected));
  if (!matches) return { ok: false, reason: 'mismatch' };
  if (Math.abs(now - t) > toleranceS) return { ok: false, reason: 'too_old' };
  return { ok: true };
}
