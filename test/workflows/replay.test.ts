import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root.js';
import { Worker } from '@temporalio/worker';
import { expect } from 'chai';
import { WORKFLOWS_PATH } from '../../worker/create-worker.js';

const DIR = path.resolve(import.meta.dirname, 'histories');

/**
 * Parses a history written by `temporal workflow show --output json` (or the same protojson from
 * `handle.fetchHistory()`). The SDK's own historyFromJSON breaks when @temporalio/common and
 * @temporalio/proto get separate protobufjs copies (as in this install), so the JSON is read with
 * the protobufjs that @temporalio/proto itself uses.
 */
function loadHistory(file: string): proto.temporal.api.history.v1.History {
  const fromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
  const { fromJson } = fromProto('protobufjs/ext/protojson') as {
    fromJson: (type: unknown, json: unknown, options: object) => proto.temporal.api.history.v1.History;
  };
  const root = patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown };
  const json: unknown = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
  return fromJson(root.lookupType('temporal.api.history.v1.History'), json, { ignoreUnknownFields: true });
}

/** Histories recorded from real runs, by workflow (the file name's first word). */
const FAMILIES = {
  // approval, cancel after submission, review rejection; a cancel while submitting (cancel-safe calls);
  // a decision by Update (accepted, then a duplicate) after the insurer SLA was breached; a file
  // insurer's endorsement waiting for its cut-off, delivered, then approved
  endorsement: 6,
  grant: 2, // two policies (one approved, one rejected), a policy already covering the employee
  webhook: 1, // a delivery retried twice, then delivered
  cutoff: 1, // a file insurer's cut-off: one policy's XLSX and CSV delivered, its endorsement marked
} as const;

/**
 * Determinism guard: histories recorded from real runs must replay against the current workflow
 * code. A change that reorders commands, adds an activity or a timer in their path fails here and
 * needs a patch (workflow.patched).
 */
describe('workflow replay', () => {
  const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json'));

  for (const [family, count] of Object.entries(FAMILIES)) {
    const mine = files.filter((f) => f.startsWith(`${family}-`));

    it(`replays every recorded ${family} history`, async function () {
      this.timeout(60_000);
      expect(mine.length, `${family} histories`).to.be.at.least(count);
      const histories = mine.map((f) => ({ workflowId: f, history: loadHistory(f) }));
      const failed: string[] = [];
      for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH }, histories)) {
        if (result.error) failed.push(`${result.workflowId}: ${result.error.message}`);
      }
      expect(failed).to.deep.equal([]);
    });
  }
});
