import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, ref, text } from './columns.js';
import { InsurerSchema } from './reference.js';

/**
 * An insurer's credentials for the insurer routes (D14): bound to one insurer (a platform partner,
 * so every client's policies with it), scopes `insurer.decisions` and `insurer.endorsements` only.
 * Not a tenant: it has no client_id and no tenant filter; every query made for it filters by its
 * insurer id (data/insurer-exchange/scope.ts). Rotated in place (secret_version), revoked for good (D18).
 */
export const InsurerPrincipalSchema = defineEntity({
  name: 'InsurerPrincipal',
  tableName: 'insurer_principals',
  indexes: [{ name: 'insurer_principals_insurer', properties: ['insurerId'] }],
  properties: {
    id: text().primary(),
    insurerId: ref(InsurerSchema, 'insurer_id').deleteRule('cascade'),
    secretHash: text(),
    secretVersion: p.integer().default(1),
    createdAt: createdAt(),
    /** D18: set once by `admin insurer-client:revoke`; from then on no token of it is accepted. */
    revokedAt: p.datetime().nullable(),
  },
});
export type InsurerPrincipal = InferEntity<typeof InsurerPrincipalSchema>;

/** One row per token issued to an insurer principal: its rolling-hour count (D4). */
export const InsurerTokenIssueSchema = defineEntity({
  name: 'InsurerTokenIssue',
  tableName: 'insurer_token_issues',
  indexes: [{ name: 'insurer_token_issues_window', properties: ['principalId', 'createdAt'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    principalId: ref(InsurerPrincipalSchema, 'principal_id').deleteRule('cascade'),
    createdAt: createdAt(),
  },
});
export type InsurerTokenIssue = InferEntity<typeof InsurerTokenIssueSchema>;
