import type { Client } from '@temporalio/client';
import type { Config } from '../config/index.js';
import type { InsurerAdapterName } from '../domain/enums.js';
import { createApiAdapter } from './api-insurer/adapter.js';
import { manualAdapter } from './manual.js';
import { createSimulatedAdapter } from './simulated.js';
import type { InsurerAdapter } from './types.js';

/** Adapters keyed by the insurer's `adapter` column (D8). */
export interface AdapterRegistry {
  get(name: InsurerAdapterName): InsurerAdapter;
  /** Replaces the adapter for a name; returns a function that puts the previous one back. */
  register(name: InsurerAdapterName, adapter: InsurerAdapter): () => void;
}

/**
 * An adapter name without an implementation here fails its activity as a retryable error: the
 * endorsement waits, and is flagged stuck on time. `file` insurers never come here: their
 * endorsements wait for the insurer's cut-off, which delivers files (workflows/insurer-cut-off).
 */
export function createAdapterRegistry(
  adapters: Partial<Record<InsurerAdapterName, InsurerAdapter>>,
): AdapterRegistry {
  const byName = new Map<InsurerAdapterName, InsurerAdapter>(
    Object.entries(adapters) as [InsurerAdapterName, InsurerAdapter][],
  );
  return {
    get(name) {
      const adapter = byName.get(name);
      if (!adapter) throw new Error(`no insurer adapter registered as ${name}`);
      return adapter;
    },
    register(name, adapter) {
      const previous = byName.get(name);
      byName.set(name, adapter);
      return () => {
        if (previous) byName.set(name, previous);
        else byName.delete(name);
      };
    },
  };
}

/**
 * The service's adapters: `simulated` (delay from config), `manual` and `api` (signing secrets from
 * the environment variables its insurers' settings name). `file` insurers get files at their
 * cut-off instead of a per-endorsement call, so there is no `file` adapter here.
 */
export function defaultAdapterRegistry(deps: {
  temporal: Client;
  config: Config;
  env?: NodeJS.ProcessEnv;
}): AdapterRegistry {
  const env = deps.env ?? process.env;
  return createAdapterRegistry({
    simulated: createSimulatedAdapter({
      temporal: deps.temporal,
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      delayMs: deps.config.SIMULATED_INSURER_DELAY_MS,
    }),
    manual: manualAdapter,
    api: createApiAdapter({ secret: (name) => env[name] }),
  });
}
