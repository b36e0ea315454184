import { randomBytes } from 'node:crypto';

export const ID_PREFIXES = {
  client: 'cli',
  user: 'usr',
  employee: 'emp',
  dependent: 'dep',
  policy: 'pol',
  member: 'mem',
  endorsement: 'end',
  grant: 'grt',
  insurer: 'ins',
  /** An insurer's credentials for the decisions API (D14). */
  insurerPrincipal: 'ipr',
  tpa: 'tpa',
  product: 'prd',
  ledger: 'cdl',
  audit: 'aud',
  webhook: 'whk',
  event: 'evt',
  delivery: 'dlv',
  /** A roster checked against a policy's members. */
  reconciliation: 'rec',
  /** A committed census (D16). */
  batch: 'bat',
  /** A policy term's renewal (D17). */
  renewal: 'rnw',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** Opaque, unguessable ids (D6): a prefix and 128 random bits in base32-ish lower-case. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBytes(16).toString('base64url').replace(/[-_]/g, '').slice(0, 22).toLowerCase()}`;
}

/** Cheap shape check so a malformed path id never reaches a query. */
export function looksLikeId(kind: IdKind, value: string): boolean {
  return value.length <= 64 && value.startsWith(`${ID_PREFIXES[kind]}_`);
}
