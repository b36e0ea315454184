import { client, type HttpClient } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { ownTarget, startApiProcess, stopChild, type Child } from './children.js';
import { seedTenant, type SeededTenant } from './tenants.js';

export interface TenantApi {
  api: Child & { url: string };
  http: HttpClient;
  tenant: SeededTenant;
}

/**
 * Registers, in the calling `describe`, an API process of its own (api/main.ts, so "no crash" means
 * the process) with one seeded tenant, stopped after the block; read it through the returned getter.
 */
export function apiProcessWithTenant(label: string, tenantLabel: string): () => TenantApi {
  let current: TenantApi | undefined;
  before(async function () {
    this.timeout(180_000);
    const api = await startApiProcess(ownTarget(`${label}-${stack().runId}`));
    const http = client(api.url);
    current = { api, http, tenant: await seedTenant(http, tenantLabel) };
  });
  after(() => (current ? stopChild(current.api) : undefined));
  return () => {
    if (!current) throw new Error('API process not started');
    return current;
  };
}
