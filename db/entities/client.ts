import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EXIT_MODES } from '../../domain/enums.js';
import { createdAt, ref, text, textEnum } from './columns.js';

/** An employer organisation: the tenant. Credentials are issued by the admin command (D3). */
export const ClientSchema = defineEntity({
  name: 'Client',
  tableName: 'clients',
  properties: {
    id: text().primary(),
    name: text(),
    secretHash: text(),
    /** Bumped on rotation; tokens carry it so older ones stop verifying. */
    secretVersion: p.integer().default(1),
    allowedScopes: p.array(),
    /** D16: an employee's exit gets its DELETIONs created (`automatic`) or listed to confirm (`proposed`). */
    exitMode: textEnum(EXIT_MODES).default('automatic'),
    createdAt: createdAt(),
    /** D18: set by `client:revoke`; its secret gets no token and its tokens are refused (0025). */
    revokedAt: p.datetime().nullable(),
  },
});
export type Client = InferEntity<typeof ClientSchema>;

/** The tenant column of a client-owned row: a reference to its client, read as the client's id. */
export const clientRef = () => ref(ClientSchema, 'client_id');

/** One row per token request naming an existing client: the shared rolling-hour count (D4). */
export const TokenIssueSchema = defineEntity({
  name: 'TokenIssue',
  tableName: 'token_issues',
  indexes: [{ name: 'token_issues_window', properties: ['clientId', 'createdAt'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    clientId: clientRef().deleteRule('cascade'),
    succeeded: p.boolean(),
    createdAt: createdAt(),
  },
});
export type TokenIssue = InferEntity<typeof TokenIssueSchema>;

/**
 * A failed token request, budgeted per (client id as sent, source) and per source (D4, revised).
 * `clientKey` is not a reference: an unknown id leaves the same trace as a known one.
 */
export const TokenFailureSchema = defineEntity({
  name: 'TokenFailure',
  tableName: 'token_failures',
  indexes: [
    { name: 'token_failures_client_source', properties: ['clientKey', 'source', 'createdAt'] },
    { name: 'token_failures_source', properties: ['source', 'createdAt'] },
  ],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    clientKey: text(),
    source: text(),
    createdAt: createdAt(),
  },
});
export type TokenFailure = InferEntity<typeof TokenFailureSchema>;
