import type { Server } from 'node:http';
import { requireDatabaseUrls, type ApiConfig } from '../config/index.js';
import { initOrm, type Orm } from '../db/orm.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import { createApp } from './app.js';
import { createCredentialStore } from './auth/credentials.js';
import { createTokenService } from './auth/tokens.js';
import type { AppDeps } from './deps.js';
import { createLogger, type Logger } from '../infra/logger.js';
import { createMetrics } from './metrics.js';
import { trustedProxies } from './auth/client-address.js';
import { createSecretChecks } from './auth/secret-checks.js';

export async function buildDeps(config: ApiConfig, overrides: Partial<AppDeps> = {}): Promise<AppDeps> {
  const clock: Clock = overrides.clock ?? systemClock;
  const orm: Orm =
    overrides.orm ?? (await initOrm({ ...requireDatabaseUrls(config), poolMax: config.DATABASE_POOL_MAX }));
  const logger: Logger = overrides.logger ?? createLogger(config.LOG_LEVEL);
  const temporal = overrides.temporal ?? createTemporalClient(config);
  return {
    config,
    orm,
    clock,
    logger,
    temporal,
    tokens:
      overrides.tokens ??
      createTokenService({
        keys: config.JWT_SIGNING_KEYS,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
        clock,
      }),
    credentials: overrides.credentials ?? createCredentialStore(orm, { logger }),
    secretChecks: overrides.secretChecks ?? createSecretChecks(),
    trustedProxies: overrides.trustedProxies ?? trustedProxies(config.TRUSTED_PROXIES),
    metrics:
      overrides.metrics ?? createMetrics({ orm, temporal, processMetrics: config.NODE_ENV !== 'test' }),
    ...overrides,
  };
}

/** Listens on config.PORT; resolves once accepting connections. */
export async function listen(
  deps: AppDeps,
  port = deps.config.PORT,
  host = deps.config.HOST,
): Promise<Server> {
  const app = createApp(deps);
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, () => resolve(server));
    server.once('error', reject);
    server.keepAliveTimeout = 65_000;
    server.requestTimeout = 30_000;
  });
}
