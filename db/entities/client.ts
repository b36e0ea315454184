import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An employer organisation: the tenant. Credentials are issued by the admin command (D3). */
export const ClientSchema = defineEntity({
  name: 'Client',
  tableName: 'clients',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    secretHash: p.string(),
    /** Bumped on rotation; tokens carry it so older ones stop verifying. */
    secretVersion: p.integer().default(1),
    allowedScopes: p.array(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Client = InferEntity<typeof ClientSchema>;

/** One row per token request naming an existing client: the shared rolling-hour count (D4). */
export const TokenIssueSchema = defineEntity({
  name: 'TokenIssue',
  tableName: 'token_issues',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    clientId: p.string(),
    succeeded: p.boolean(),
    createdAt: p.datetime(),
  },
});
export type TokenIssue = InferEntity<typeof TokenIssueSchema>;
