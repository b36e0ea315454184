import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, requireDatabaseUrls } from '../config/index.js';
import { initOrm } from '../db/orm.js';
import { operatorConfig } from '../infra/local-stack.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import { reconcileRosterFile, RosterError } from '../usecases/reconciliation/roster.js';
import { printCommandResult } from './command-result.js';

export const RECONCILE_USAGE =
  '  insurer reconcile <POLICY_ID> <FILE> [--json]   check an insurer roster (.csv/.xlsx) against the policy’s members';

class ReconcileUsageError extends Error {}

type Reconciled = Awaited<ReturnType<typeof reconcileRosterFile>>;

async function reconcile(argv: string[]): Promise<Reconciled> {
  const { positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [policyId, file] = positionals;
  if (!policyId || !file || positionals.length !== 2)
    throw new ReconcileUsageError(`usage:\n${RECONCILE_USAGE}`);
  if (!existsSync(file)) throw new RosterError(`no file ${file}`);
  const config = operatorConfig(['database', 'temporal']);
  const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: 2 });
  const temporal = createTemporalClient(config);
  try {
    return await reconcileRosterFile(
      { em: orm.em.fork(), temporal, taskQueue: config.TEMPORAL_TASK_QUEUE },
      policyId,
      file,
    );
  } finally {
    await temporal.connection.close();
    await orm.close();
  }
}

function lines(r: Reconciled): string {
  const head = `reconciliation ${r.reconciliation_id} of policy ${r.policy_id}: ${r.status}${r.repeat ? ' (this roster was reconciled before: recorded result)' : ''}`;
  if (r.status === 'refused') return `${head}: ${r.error}`;
  return [head, ...Object.entries(r.counts).map(([kind, n]) => `  ${kind}: ${n}`)].join('\n');
}

/**
 * `insurer reconcile POLICY_ID FILE`: reconciles an insurer's roster file for a policy through the
 * reconciliation workflow and prints its counts (ids and counts only; the differences are read
 * through the API). A roster refused whole prints why and exits 1.
 */
export function runReconcileCommand(argv: string[]): void {
  printCommandResult(reconcile(argv), argv.includes('--json'), lines, {
    known: (err) =>
      err instanceof ReconcileUsageError || err instanceof RosterError || err instanceof ConfigError,
    usage: (err) => err instanceof ReconcileUsageError,
  });
}
