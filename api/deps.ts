import type { OutgoingHttpHeaders } from 'node:http';
import type { Client as TemporalClient } from '@temporalio/client';
import type { ApiConfig } from '../config/index.js';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../domain/clock.js';
import type { BlockList } from 'node:net';
import type { CredentialStore } from './auth/credentials.js';
import type { SecretChecks } from './auth/secret-checks.js';
import type { TokenService } from './auth/tokens.js';
import type { Logger } from '../infra/logger.js';
import type { Metrics } from './metrics.js';

/** The matched route as an observer names it (its RouteDef, by method and path: api/route.ts). */
export interface ObservedRoute {
  method: string;
  path: string;
}

/** Called with every answer of a matched route, as the client got it (the contract check in tests). */
export type ResponseObserver = (
  route: ObservedRoute,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders,
) => void;

/** Everything the HTTP app needs, passed in explicitly; the app keeps no module-level state. */
export interface AppDeps {
  config: ApiConfig;
  orm: Orm;
  temporal: TemporalClient;
  clock: Clock;
  logger: Logger;
  tokens: TokenService;
  credentials: CredentialStore;
  /** Client-secret verification with its concurrency bound (token route). */
  secretChecks: SecretChecks;
  /** TRUSTED_PROXIES, ready to match a peer address. */
  trustedProxies: BlockList;
  /** This app's own Prometheus registry and recorders (GET /metrics). */
  metrics: Metrics;
  onResponse?: ResponseObserver;
}
