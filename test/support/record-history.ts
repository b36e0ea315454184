import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import { createRequire } from 'node:module';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root.js';
import { ENCRYPTED_ENCODING } from '../../infra/payload-codec.js';
import { stack } from './stack.js';

const encrypted = (p: Payload) =>
  Buffer.from(p.metadata?.encoding ?? []).toString('utf8') === ENCRYPTED_ENCODING;

type History = proto.temporal.api.history.v1.History;

/**
 * Protojson with the protobufjs that @temporalio/proto itself uses: the SDK's own historyFromJSON
 * breaks when @temporalio/common and @temporalio/proto get separate protobufjs copies (as in this
 * install). The module's namespace object under plain `node --import tsx`, its default export's root.
 */
function protojson() {
  const fromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
  const json = fromProto('protobufjs/ext/protojson') as {
    toJson: (type: unknown, message: unknown, options: object) => unknown;
    fromJson: (type: unknown, json: unknown, options: object) => History;
  };
  const module = (proto as unknown as { default?: typeof proto }).default ?? proto;
  const root = patchProtobufRoot(module) as unknown as { lookupType(name: string): unknown };
  return { json, type: root.lookupType('temporal.api.history.v1.History') };
}

/** A history as `temporal workflow show --output json` writes it (and recordHistory below). */
function toJson(history: unknown): unknown {
  const { json, type } = protojson();
  return json.toJson(type, history, {});
}

/** Reads a history written by `temporal workflow show --output json` or recordHistory below. */
export function loadHistory(file: string): History {
  const { json, type } = protojson();
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  return json.fromJson(type, parsed, { ignoreUnknownFields: true });
}

/**
 * With RECORD_HISTORIES=<dir> set, writes a workflow's history there as `<name>.json`, its payloads
 * decoded with the run's key (the replay test, test/workflows/replay.test.ts, replays histories
 * without a codec). Without it, does nothing: recording is a deliberate, one-off step.
 */
export async function recordHistory(workflowId: string, name: string): Promise<void> {
  const dir = process.env.RECORD_HISTORIES;
  if (!dir) return;
  const history = await stack().temporal.workflow.getHandle(workflowId).fetchHistory();
  const codec = stack().temporal.options.loadedDataConverter.payloadCodecs[0]!;
  const decode = async (node: unknown): Promise<void> => {
    if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return;
    const record = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(record)) {
      if (key === 'payloads' && Array.isArray(value)) {
        record[key] = await Promise.all(
          (value as Payload[]).map(async (p) => (encrypted(p) ? (await codec.decode([p]))[0]! : p)),
        );
      } else {
        await decode(value);
      }
    }
  };
  await decode(history);
  writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(toJson(history), null, 2)}\n`);
}
