import fs from 'node:fs';
import path from 'node:path';
import type * as proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { expect } from 'chai';
import { WORKFLOWS_PATH } from '../../worker/create-worker.js';
import * as registeredWorkflows from '../../workflows/index.js';
import { loadHistory as loadRecordedHistory } from '../support/record-history.js';

const DIR = path.resolve(import.meta.dirname, 'histories');
/** Histories of runs that took a branch since deleted (histories/drained/README.md). */
const DRAINED = 'drained';

type History = proto.temporal.api.history.v1.History;

/** A committed history (test/workflows/histories/<file>). */
const loadHistory = (file: string): History => loadRecordedHistory(path.join(DIR, file));

/** Every workflow type the worker registers: the functions workflows/index.ts exports. */
function registeredWorkflowTypes(): string[] {
  return Object.entries(registeredWorkflows)
    .filter(([, value]) => typeof value === 'function')
    .map(([name]) => name);
}

const typeOf = (history: History): string =>
  history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '?';

/**
 * Determinism guard: histories recorded from real runs of released code (test/workflows/histories,
 * one folder per release recorded with `npm run -s record-histories`, plus older single recordings)
 * must replay against the current workflow code. A change that reorders commands, adds an activity
 * or a timer in their path fails here and needs a patch (workflow.patched; docs/operators/README.md, "Deploying
 * workflow changes"). Every registered workflow type must have at least one history. Histories under
 * histories/drained took a branch a deprecated patch deleted: each must fail (else it goes back).
 */
describe('workflow replay', () => {
  const all = fs
    .readdirSync(DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .sort();
  const drained = all.filter((f) => f.startsWith(`${DRAINED}${path.sep}`));
  const files = all.filter((f) => !drained.includes(f));
  const byType = new Map<string, { workflowId: string; history: History }[]>();
  for (const file of files) {
    const history = loadHistory(file);
    byType.set(typeOf(history), [...(byType.get(typeOf(history)) ?? []), { workflowId: file, history }]);
  }

  it('has a recorded history of every workflow type the worker registers', () => {
    const types = registeredWorkflowTypes();
    expect(types).to.include.members(['endorsementWorkflow', 'insurerCutOffWorkflow']);
    expect(types.filter((t) => !byType.has(t))).to.deep.equal([]);
  });

  for (const type of registeredWorkflowTypes()) {
    it(`replays every recorded ${type} history`, async function () {
      this.timeout(60_000);
      const histories = byType.get(type) ?? [];
      expect(histories, `${type} histories`).to.not.be.empty;
      const failed: string[] = [];
      for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH }, histories)) {
        if (result.error) failed.push(`${result.workflowId}: ${result.error.message}`);
      }
      expect(failed).to.deep.equal([]);
    });
  }

  it('fails every retired history: each took a branch that a deprecated patch deleted', async function () {
    this.timeout(60_000);
    expect(drained, 'retired histories').to.not.be.empty;
    const histories = drained.map((file) => ({ workflowId: file, history: loadHistory(file) }));
    expect([...new Set(histories.map(({ history }) => typeOf(history)))]).to.deep.equal([
      'endorsementWorkflow',
    ]);
    const replayed: string[] = [];
    const failures = new Map<string, string>();
    for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH }, histories)) {
      if (result.error) failures.set(result.workflowId, result.error.message);
      else replayed.push(result.workflowId);
    }
    expect(replayed, 'retired histories that replay (move them back)').to.deep.equal([]);
    expect([...failures.keys()].sort()).to.deep.equal(drained);
    // A determinism failure (a command where the history has another), not a history that cannot load.
    for (const [file, message] of failures)
      expect(message, file).to.match(/nondeterminism|Fatal error in workflow machines/);
  });
});
