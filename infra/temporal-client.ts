import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { payloadEncryptionKeys, temporalTls, type Config } from '../config/index.js';
import { AesGcmPayloadCodec } from './payload-codec.js';

export function requireTemporalAddress(config: Config): string {
  if (!config.TEMPORAL_ADDRESS)
    throw new Error('TEMPORAL_ADDRESS is required (npm start sets it for a local stack)');
  return config.TEMPORAL_ADDRESS;
}

/** Failures' messages and stack traces travel as encoded attributes (see the module's comment). */
export const FAILURE_CONVERTER_PATH = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

/**
 * Every payload this service writes to Temporal is AES-256-GCM encrypted and every one it reads is
 * decrypted, failure messages included: the same converter for the client and the workers
 * (workflow code itself is unaware).
 */
export function payloadDataConverter(config: Config): DataConverter {
  return {
    payloadCodecs: [new AesGcmPayloadCodec(payloadEncryptionKeys(config))],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}

/** Where and how every connection of this process reaches Temporal: the address and its TLS (mTLS). */
export function temporalConnectionOptions(config: Config): {
  address: string;
  tls?: ReturnType<typeof temporalTls>;
} {
  const tls = temporalTls(config);
  return { address: requireTemporalAddress(config), ...(tls ? { tls } : {}) };
}

/** The client the API and the command-line tools use. Connects lazily so the API starts while Temporal is down. */
export function createTemporalClient(config: Config): Client {
  const connection = Connection.lazy({ ...temporalConnectionOptions(config), connectTimeout: 3_000 });
  return new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: payloadDataConverter(config),
  });
}

export async function connectWorkerConnection(config: Config): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectionOptions(config));
}
