import { parseArgs } from 'node:util';
import { ConfigError, requireDatabaseUrls } from '../config/index.js';
import { SystemScope } from '../data/scope.js';
import { initOrm } from '../db/orm.js';
import type { ManualOverride } from '../domain/insurer-exchange/decisions.js';
import { recordOperatorDecision } from '../usecases/insurer-exchange/decisions.js';
import { flushInsurer, NotAFileInsurer } from '../usecases/insurer-exchange/cut-off.js';
import type { CutOffResult } from '../workflows/insurer-cut-off/contract.js';
import { looksLikeId } from '../domain/ids.js';
import { operatorConfig } from '../infra/local-stack.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import type { DecisionAnswer, InsurerDecision } from '../workflows/endorsement/contract.js';
import { INGEST_USAGE, runIngestCommand } from './insurer-ingest.js';
import { RECONCILE_USAGE, runReconcileCommand } from './insurer-reconcile.js';
import { CD_STATEMENT_USAGE, runCdStatementCommand } from './insurer-cd-statement.js';
import { refuseBracketedArguments } from './command-args.js';

const USAGE = `usage:
  insurer approve <endorsement_id> [--uhid U] [--member-id M] [--force --reason "…"] [--json]
  insurer reject <endorsement_id> --reason "…" [--force] [--json]
      # only once the insurer received it; --force records it anyway, audited with the reason
  insurer flush <INSURER_CODE> [--json]     # a file insurer's cut-off, now: prints the files it wrote
${INGEST_USAGE}
${RECONCILE_USAGE}
${CD_STATEMENT_USAGE}`;

class UsageError extends Error {}

/** A usage line's placeholder or bracket pasted as it is ("[--json]", "--uhid …"): never a value. */
const PLACEHOLDER = /^(\[|<|…$|\.\.\.$)/;

interface InsurerCommand {
  endorsementId: string;
  decision: InsurerDecision;
  override?: ManualOverride;
}

/** Parses the command line into the endorsement id, the decision and an override; anything else is usage. */
function parseInsurerCommand(argv: string[]): InsurerCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        uhid: { type: 'string' },
        'member-id': { type: 'string' },
        reason: { type: 'string' },
        force: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    // Unknown options, and an option missing its value.
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const { positionals, values } = parsed;
  const pasted = [...positionals, values.uhid, values['member-id'], values.reason].find(
    (v) => v !== undefined && PLACEHOLDER.test(v.trim()),
  );
  if (pasted !== undefined) throw new UsageError(`not a value: ${pasted}\n${USAGE}`);
  const [command, endorsementId] = positionals;
  if (!endorsementId || positionals.length !== 2) throw new UsageError(USAGE);
  if (!looksLikeId('endorsement', endorsementId))
    throw new UsageError(`not an endorsement id: ${endorsementId}`);
  const reason = values.reason?.trim();
  if (values.force && !reason) throw new UsageError(`--force needs --reason "…"\n${USAGE}`);
  const override = values.force && reason ? { override: { reason } } : {};
  if (command === 'approve') {
    if (values.reason !== undefined && !values.force)
      throw new UsageError('--reason applies to reject, or to approve with --force');
    const decision: InsurerDecision = { decision: 'APPROVED' };
    if (values.uhid) decision.uhid = values.uhid;
    if (values['member-id']) decision.insurer_member_id = values['member-id'];
    return { endorsementId, decision, ...override };
  }
  if (command === 'reject') {
    if (!reason) throw new UsageError('reject needs --reason "…"');
    if (values.uhid || values['member-id'])
      throw new UsageError('--uhid and --member-id apply to approve only');
    return { endorsementId, decision: { decision: 'REJECTED', rejection_reason: reason }, ...override };
  }
  throw new UsageError(USAGE);
}

/**
 * D14: records an insurer's decision through the decision Update, exactly as an adapter does, and
 * prints the workflow's answer (accepted / duplicate / refused with the reason). Only for what the
 * insurer received, unless forced with a reason (usecases/insurer-exchange/decisions.ts: the rule and the
 * audit entry). Reads DATABASE_URL, TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE from the environment,
 * else from a running `npm start`.
 */
async function main(argv: string[]): Promise<{ endorsement_id: string } & DecisionAnswer> {
  const { endorsementId, decision, override } = parseInsurerCommand(argv);
  const config = operatorConfig(['database', 'temporal']);
  const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: 2 });
  const temporal = createTemporalClient(config);
  try {
    const answer = await recordOperatorDecision(
      { temporal, system: SystemScope.of(orm.em) },
      endorsementId,
      decision,
      override,
    );
    return { endorsement_id: endorsementId, ...answer };
  } finally {
    await temporal.connection.close();
    await orm.close();
  }
}

/**
 * D14 `flush CODE`: one cut-off of a file insurer now, through the same workflow the insurer's
 * Schedule starts; waits for it and returns the files it delivered (names, policy, rows, endorsement
 * ids, destination: never personal data). While the insurer's server is down the cut-off keeps
 * retrying and this waits; Ctrl-C leaves the cut-off running.
 */
async function flush(argv: string[]): Promise<CutOffResult> {
  const { positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [, code] = positionals;
  if (!code || positionals.length !== 2) throw new UsageError(USAGE);
  const config = operatorConfig(['database', 'temporal']);
  const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: 2 });
  const temporal = createTemporalClient(config);
  try {
    return await flushInsurer(
      { em: orm.em.fork(), temporal, taskQueue: config.TEMPORAL_TASK_QUEUE },
      code,
      new Date(),
    );
  } catch (err) {
    throw err instanceof NotAFileInsurer ? new UsageError(err.message) : err;
  } finally {
    await temporal.connection.close();
    await orm.close();
  }
}

function flushLines(r: CutOffResult): string {
  const files = r.files.map(
    (f) =>
      `${f.file_name}  policy ${f.policy_number}  ${f.rows} rows  ${f.endorsement_ids.length} endorsements  -> ${f.destination}`,
  );
  const head = `cut-off ${r.insurer_code} at ${r.cut_off}: ${r.files.length} files, ${r.sent} endorsements SENT_TO_INSURER`;
  return [head, ...files].join('\n');
}

function fail(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const known = err instanceof UsageError || err instanceof ConfigError;
  process.stderr.write(`${known ? message : `failed: ${message}`}\n`);
  process.exitCode = err instanceof UsageError ? 2 : 1;
}

refuseBracketedArguments(process.argv.slice(2));
const json = process.argv.includes('--json');
if (process.argv[2] === 'ingest') runIngestCommand(process.argv.slice(3));
else if (process.argv[2] === 'reconcile') runReconcileCommand(process.argv.slice(3));
else if (process.argv[2] === 'cd-statement') runCdStatementCommand(process.argv.slice(3));
else if (process.argv[2] === 'flush') {
  flush(process.argv.slice(2)).then(
    (result) => process.stdout.write(`${json ? JSON.stringify(result) : flushLines(result)}\n`),
    fail,
  );
} else {
  main(process.argv.slice(2)).then((answer) => {
    // A refusal exits 1 (plain text on stderr); accepted and duplicate exit 0. JSON always on stdout.
    const text = json
      ? JSON.stringify(answer)
      : `${answer.result}: ${answer.endorsement_id}: ${answer.detail}`;
    (answer.result === 'refused' && !json ? process.stderr : process.stdout).write(`${text}\n`);
    if (answer.result === 'refused') process.exitCode = 1;
  }, fail);
}
