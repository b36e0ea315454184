import {
  condition,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { DEFAULT_SLA_DAYS, type InsurerAssignment } from '../../domain/insurer-exchange/decisions.js';
import { databaseActivity, localDatabaseActivity, withSummaries } from '../activity-options.js';
import { EndorsementSlaBreached, InsurerId, SlaDueAt, SubmittedAt } from '../search-attributes.js';
import { ENDORSEMENT_GONE } from './contract.js';
import { duration, stepSummary } from './details.js';
import { SLA_WATCH_TOLD } from './patches.js';

const db = withSummaries(proxyActivities<Activities>(databaseActivity([ENDORSEMENT_GONE])), stepSummary);
/** The read of who has the endorsement, as a local activity (LOCAL_DATABASE_STEPS, patches.ts). */
const localDb = withSummaries(
  proxyLocalActivities<Activities>(localDatabaseActivity([ENDORSEMENT_GONE])),
  stepSummary,
);

const DAY_MS = 86_400_000;

/** A Date for a Datetime search attribute from a known instant: deterministic, unlike the clock. */
// eslint-disable-next-line no-restricted-globals -- no clock read: the instant comes from history
const instant = (ms: number): Date => new Date(ms);
/** An ISO 8601 instant from an activity's result, in milliseconds. */
// eslint-disable-next-line no-restricted-globals -- parsing text, not reading the clock
const parseInstant = (iso: string): number => Date.parse(iso);

/**
 * Starts watching the insurer's SLA from now (the endorsement is SENT_TO_INSURER): records who has
 * it and when it is due, and past the due time without a decision or a cancel (`settled`) marks it
 * EndorsementSlaBreached and announces `endorsement.sla_breached`, once. It never decides: the
 * insurer may already have enrolled the person. `onBreach` runs once the breach is recorded. `told`:
 * who has it as the step that sent it said (run.ts), null from older releases.
 */
export async function watchInsurerSla(
  endorsementId: string,
  slaAfterMs: number | undefined,
  settled: () => boolean,
  onBreach: () => void,
  told: InsurerAssignment | null,
): Promise<SlaWatch> {
  const assignment = await whoHasIt(endorsementId, told);
  const { insurerId } = assignment;
  // The insurer's own sla_days (its adapter settings) first, then the service default.
  const slaMs = assignment.slaDays ? assignment.slaDays * DAY_MS : (slaAfterMs ?? DEFAULT_SLA_DAYS * DAY_MS);
  const submittedAt = instant(parseInstant(assignment.submittedAt));
  const dueAt = instant(submittedAt.getTime() + slaMs);
  upsertSearchAttributes([
    { key: InsurerId, value: insurerId },
    { key: SubmittedAt, value: submittedAt },
    { key: SlaDueAt, value: dueAt },
    { key: EndorsementSlaBreached, value: false },
  ]);
  const watching = (async () => {
    if (await condition(settled, slaMs, { summary: `insurer SLA breaches after ${duration(slaMs)}` })) return;
    await db.recordSlaBreach(endorsementId, dueAt.toISOString());
    upsertSearchAttributes([{ key: EndorsementSlaBreached, value: true }]);
    onBreach();
    log.warn('endorsement past the insurer SLA', { endorsementId, insurerId, slaMs });
  })();
  // Settles either way, so a failure surfaces where the workflow awaits the watch, not unhandled.
  const outcome = watching.then(
    () => null,
    (failure: unknown) => failure,
  );
  return {
    dueAt: dueAt.getTime(),
    async ended() {
      const failure = await outcome;
      if (failure) throw failure as Error;
    },
  };
}

/**
 * SLA_WATCH_TOLD: what the step that sent it said (the cut-off's signal or the routing's answer,
 * recorded in the history); otherwise the local activity's read, whose submission time is the
 * database's clock right after the change (recorded in the history; a read only, so a re-run
 * changes nothing).
 */
async function whoHasIt(endorsementId: string, told: InsurerAssignment | null): Promise<InsurerAssignment> {
  if (told && patched(SLA_WATCH_TOLD)) return told;
  return localDb.readEndorsementInsurer(endorsementId);
}

export interface SlaWatch {
  /** When the SLA breaches (epoch milliseconds). */
  dueAt: number;
  /** Resolves once the watch is over (decision, cancel, or the breach recorded). */
  ended(): Promise<void>;
}
