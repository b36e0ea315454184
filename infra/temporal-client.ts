import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Config } from '../config/index.js';

export function requireTemporalAddress(config: Config): string {
  if (!config.TEMPORAL_ADDRESS)
    throw new Error('TEMPORAL_ADDRESS is required (npm start sets it for a local stack)');
  return config.TEMPORAL_ADDRESS;
}

/** The client the API and the command-line tools use. Connects lazily so the API starts while Temporal is down. */
export function createTemporalClient(config: Config): Client {
  const connection = Connection.lazy({ address: requireTemporalAddress(config), connectTimeout: 3_000 });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

export async function connectWorkerConnection(config: Config): Promise<NativeConnection> {
  return NativeConnection.connect({ address: requireTemporalAddress(config) });
}
