import type { Client as TemporalClient } from '@temporalio/client';
import type { Config } from '../config/index.js';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../domain/clock.js';
import type { CredentialStore } from './auth/credentials.js';
import type { TokenService } from './auth/tokens.js';
import type { Logger } from './logger.js';

/** Everything the HTTP app needs, passed in explicitly; the app keeps no module-level state. */
export interface AppDeps {
  config: Config;
  orm: Orm;
  temporal: TemporalClient;
  clock: Clock;
  logger: Logger;
  tokens: TokenService;
  credentials: CredentialStore;
}
