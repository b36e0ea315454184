import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, requireDatabaseUrls } from '../config/index.js';
import { initOrm } from '../db/orm.js';
import { operatorConfig } from '../infra/local-stack.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import { CdTopUpRefused, wakeFundedEndorsements } from '../usecases/cd-account/account.js';
import { reconcileCdStatementFile, type StatementResult } from '../usecases/reconciliation/cd-statement.js';
import { printCommandResult } from './command-result.js';

export const CD_STATEMENT_USAGE =
  '  insurer cd-statement <POLICY_ID> <FILE> [--post-top-ups] [--json]   compare an insurer CD statement with the ledger';

class StatementUsageError extends Error {}

async function run(
  argv: string[],
): Promise<Omit<StatementResult, 'funded' | 'deliveries'> & { woken: number }> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'post-top-ups': { type: 'boolean', default: false },
    },
  });
  const [policyId, file] = positionals;
  if (!policyId || !file || positionals.length !== 2)
    throw new StatementUsageError(`usage:\n${CD_STATEMENT_USAGE}`);
  if (!existsSync(file)) throw new CdTopUpRefused(`no file ${file}`);
  const postTopUps = values['post-top-ups'];
  const config = operatorConfig(postTopUps ? ['database', 'temporal'] : ['database']);
  const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: 2 });
  try {
    // The webhook's deliveries are started by the worker's sweeper (this command runs no worker).
    const {
      funded,
      deliveries: _started,
      ...result
    } = await reconcileCdStatementFile(orm.em.fork(), policyId, file, {
      postTopUps,
    });
    if (funded.length === 0) return { ...result, woken: 0 };
    const temporal = createTemporalClient(config);
    try {
      await wakeFundedEndorsements(temporal, funded);
    } finally {
      await temporal.connection.close();
    }
    return { ...result, woken: funded.length };
  } finally {
    await orm.close();
  }
}

function lines(r: Awaited<ReturnType<typeof run>>): string {
  const head = `CD statement ${r.file_name} of policy ${r.policy_id}: ${r.status} as ${r.reconciliation_id}${r.repeat ? ' (recorded before)' : ''}`;
  if (r.status === 'refused') return `${head}: ${r.error}`;
  const diffs = r.differences.map(
    (d) => `  ${d.kind} ${d.reference ?? ''} ours ${d.ours ?? '-'} theirs ${d.theirs ?? '-'}`,
  );
  const posted = r.top_ups_posted.map(
    (t) => `  top-up ${t.reference} ${t.amount}${t.duplicate ? ' (already recorded)' : ''}`,
  );
  return [`${head} ${r.from}..${r.to}, ${r.differences.length} differences`, ...diffs, ...posted].join('\n');
}

/**
 * `insurer cd-statement POLICY_ID FILE [--post-top-ups]`: the insurer's CD statement against the
 * policy's ledger; prints the differences (references and amounts). A statement refused whole exits 1.
 */
export function runCdStatementCommand(argv: string[]): void {
  printCommandResult(run(argv), argv.includes('--json'), lines, {
    known: (err) =>
      err instanceof StatementUsageError || err instanceof CdTopUpRefused || err instanceof ConfigError,
    usage: (err) => err instanceof StatementUsageError,
  });
}
