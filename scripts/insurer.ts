import { parseArgs } from 'node:util';
import { DecisionRefused, sendInsurerDecision } from '../adapters/decisions.js';
import { ConfigError } from '../config/index.js';
import { looksLikeId } from '../domain/ids.js';
import { operatorConfig } from '../infra/local-stack.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import type { InsurerDecision } from '../workflows/endorsement/contract.js';

const USAGE = `usage:
  insurer approve <endorsement_id> [--uhid U] [--member-id M]
  insurer reject <endorsement_id> --reason "…"`;

class UsageError extends Error {}

/** Parses the command line into the endorsement id and the decision to send. */
function parseInsurerCommand(argv: string[]): { endorsementId: string; decision: InsurerDecision } {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      uhid: { type: 'string' },
      'member-id': { type: 'string' },
      reason: { type: 'string' },
    },
  });
  const [command, endorsementId] = positionals;
  if (!endorsementId || positionals.length !== 2) throw new UsageError(USAGE);
  if (!looksLikeId('endorsement', endorsementId))
    throw new UsageError(`not an endorsement id: ${endorsementId}`);
  if (command === 'approve') {
    if (values.reason !== undefined) throw new UsageError('--reason applies to reject only');
    const decision: InsurerDecision = { decision: 'APPROVED' };
    if (values.uhid) decision.uhid = values.uhid;
    if (values['member-id']) decision.insurer_member_id = values['member-id'];
    return { endorsementId, decision };
  }
  if (command === 'reject') {
    const reason = values.reason?.trim();
    if (!reason) throw new UsageError('reject needs --reason "…"');
    if (values.uhid || values['member-id'])
      throw new UsageError('--uhid and --member-id apply to approve only');
    return { endorsementId, decision: { decision: 'REJECTED', rejection_reason: reason } };
  }
  throw new UsageError(USAGE);
}

/**
 * D8: records an insurer's decision by sending the `insurerDecision` signal, exactly as an adapter
 * does. Reads TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE from the environment, else from a running `npm start`.
 */
async function main(argv: string[]): Promise<string> {
  const { endorsementId, decision } = parseInsurerCommand(argv);
  const temporal = createTemporalClient(operatorConfig(['temporal']));
  try {
    await sendInsurerDecision(temporal, endorsementId, decision);
    return `${decision.decision === 'APPROVED' ? 'approval' : 'rejection'} sent for ${endorsementId}`;
  } finally {
    await temporal.connection.close();
  }
}

main(process.argv.slice(2)).then(
  (message) => process.stdout.write(`${message}\n`),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    const known = err instanceof UsageError || err instanceof DecisionRefused || err instanceof ConfigError;
    process.stderr.write(`${known ? message : `failed: ${message}`}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  },
);
