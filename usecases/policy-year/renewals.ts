import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AdapterRegistry } from '../../adapters/registry.js';
import { writeInsurerFile } from '../../adapters/file/writer.js';
import { transportFor } from '../../adapters/file/settings.js';
import type { Config } from '../../config/index.js';
import {
  completeRenewal,
  expireDeclined,
  findRenewal,
  findRenewalPolicy,
  latestRenewal,
  listOpenRenewals,
  listPoliciesDueForRenewal,
  markRenewalSubmitted,
  moveRenewal,
  openRenewal,
  renewalCandidates,
  renewalInsurer,
  setRenewalQuote,
  type RenewalPolicy,
  type RenewalRow,
} from '../../data/policy-year/renewals.js';
import { TenantScope, type SystemScope } from '../../data/scope.js';
import { today, type Clock } from '../../domain/clock.js';
import { storedAdapterConfig } from '../../domain/insurer-exchange/adapter-settings.js';
import {
  autoConfirmsOn,
  draftRenewal,
  nextTerm,
  renewalQuoteSchema,
  renewalTerms,
  startOfBusinessDay,
  type RenewalDraft,
  type RenewalQuote,
} from '../../domain/policy-year/renewal.js';
import { formatPaise, toPaise } from '../../domain/premium.js';
import {
  renewalFileName,
  renewalFileTable,
  type RenewalSubmission,
} from '../../domain/policy-year/renewal-submission.js';
import { describeIssues } from '../../domain/schemas/issues.js';
import {
  RENEWAL_WORKFLOW,
  renewalNudgeSignal,
  renewalStartOptions,
  renewalWorkflowId,
  type RenewalClock,
} from '../../workflows/renewal/contract.js';
import { startDeliveries, type DeliveryStartDeps } from '../webhooks/deliveries.js';

/** Why a renewal cannot be opened, quoted or decided; `code` says which answer a caller gives. */
export class RenewalRefused extends Error {
  constructor(
    readonly code:
      'POLICY_NOT_FOUND' | 'NOT_RENEWABLE' | 'NO_OPEN_RENEWAL' | 'ALREADY_DECIDED' | 'INVALID_QUOTE',
    message: string,
  ) {
    super(message);
    this.name = 'RenewalRefused';
  }
}

export interface RenewalDeps extends DeliveryStartDeps {
  temporal: Client;
  config: Config;
  clock: Clock;
}

/** A quote file's parsed content, validated (JSON or YAML is the caller's to read). */
export function parseRenewalQuote(value: unknown): RenewalQuote {
  const parsed = renewalQuoteSchema.safeParse(value);
  if (!parsed.success) {
    throw new RenewalRefused('INVALID_QUOTE', `invalid quote: ${describeIssues(parsed.error.issues)}`);
  }
  return parsed.data;
}

/** The next term's dates with the quote's on top; a quoted start must follow the current term. */
function quotedTerm(
  policy: RenewalPolicy,
  quote: RenewalQuote | null,
): { termStart: string; termEnd: string } {
  const { term } = renewalTerms(currentTerms(policy), quote);
  if (term.startDate <= policy.end_date) {
    throw new RenewalRefused('INVALID_QUOTE', `invalid quote: start_date: must be after ${policy.end_date}`);
  }
  return { termStart: term.startDate, termEnd: term.endDate };
}

const currentTerms = (p: RenewalPolicy) => ({
  term: { startDate: p.start_date, endDate: p.end_date },
  slabs: p.slabs,
  defaultSumInsured: p.default_sum_insured,
});

async function renewablePolicy(scope: TenantScope, policyId: string): Promise<RenewalPolicy> {
  const policy = await findRenewalPolicy(scope, policyId);
  if (!policy) throw new RenewalRefused('POLICY_NOT_FOUND', `policy ${policyId} not found`);
  if (policy.status !== 'POLICY_STATUS_ACTIVE') {
    throw new RenewalRefused('NOT_RENEWABLE', `policy ${policyId} is ${policy.status}`);
  }
  return policy;
}

/**
 * Opens the renewal of the policy's current term (DRAFT, `policy.renewal_drafted`), with the
 * insurer's quote when given, once: a second open finds the first (unique policy and term start) and
 * leaves its quote alone. Used by the workflow's first step and by the operator's command.
 */
export async function openPolicyRenewal(
  deps: DeliveryStartDeps,
  scope: TenantScope,
  policyId: string,
  quote: RenewalQuote | null,
): Promise<RenewalRow> {
  const policy = await findRenewalPolicy(scope, policyId);
  if (!policy) throw new RenewalRefused('POLICY_NOT_FOUND', `policy ${policyId} not found`);
  const existing = await latestRenewal(scope, policyId);
  if (existing) return existing;
  await renewablePolicy(scope, policyId);
  const term = quotedTerm(policy, quote);
  const opened = await openRenewal(scope, { policyId, ...term, quote });
  await startDeliveries(deps, scope.em, opened.deliveries);
  return opened.renewal;
}

/**
 * Starts the policy's renewal workflow (idempotent: its id is the policy's and term's) after opening
 * the renewal, so an operator's quote is stored before the workflow reads it.
 */
export async function startPolicyRenewal(
  deps: RenewalDeps,
  scope: TenantScope,
  policyId: string,
  quote: RenewalQuote | null,
): Promise<{ renewal: RenewalRow; workflow_id: string }> {
  const renewal = await openPolicyRenewal(deps, scope, policyId, quote);
  const policy = (await findRenewalPolicy(scope, policyId))!;
  const workflowId = await startRenewalWorkflow(deps, scope.clientId, policy);
  return { renewal, workflow_id: workflowId };
}

async function startRenewalWorkflow(
  deps: { temporal: Client; config: Config },
  clientId: string,
  policy: { id: string; end_date: string },
): Promise<string> {
  const options = renewalStartOptions(
    { clientId, policyId: policy.id },
    policy.end_date,
    deps.config.TEMPORAL_TASK_QUEUE,
  );
  try {
    await deps.temporal.workflow.start(RENEWAL_WORKFLOW, options);
  } catch (err) {
    // Running, or finished: either way this term's renewal has its one workflow.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return options.workflowId;
}

/** The insurer's quote arrived after the renewal opened: it replaces the draft's terms while DRAFT. */
export async function quotePolicyRenewal(
  scope: TenantScope,
  policyId: string,
  quote: RenewalQuote,
): Promise<RenewalRow> {
  const renewal = await openRenewalOf(scope, policyId);
  const policy = (await findRenewalPolicy(scope, policyId))!;
  if (!(await setRenewalQuote(scope, renewal.id, quote, quotedTerm(policy, quote)))) {
    throw new RenewalRefused(
      'ALREADY_DECIDED',
      `the renewal is ${renewal.status}; a quote changes a DRAFT only`,
    );
  }
  return (await findRenewal(scope, renewal.id))!;
}

/** The renewal of the policy's current term, or NO_OPEN_RENEWAL (also for another client's policy, D1). */
async function openRenewalOf(scope: TenantScope, policyId: string): Promise<RenewalRow> {
  const policy = await findRenewalPolicy(scope, policyId);
  const renewal = policy && (await latestRenewal(scope, policyId));
  if (!policy || !renewal) {
    throw new RenewalRefused('NO_OPEN_RENEWAL', `no renewal is open for policy ${policyId}`);
  }
  return renewal;
}

export interface RenewalView {
  renewal: RenewalRow;
  policy: RenewalPolicy;
  draft: RenewalDraft;
  autoConfirmDate: string;
}

/**
 * The draft as of now: computed from the current members on every read (so endorsements and census
 * changes made meanwhile are in it), with the quote's terms. A renewal already RENEWED shows what it
 * carried as it was computed now from the old term's rows. Undefined when no renewal is open.
 */
export async function readRenewal(
  scope: TenantScope,
  config: Config,
  policyId: string,
): Promise<RenewalView | undefined> {
  const policy = await findRenewalPolicy(scope, policyId);
  const renewal = policy && (await latestRenewal(scope, policyId));
  if (!policy || !renewal) return undefined;
  const members = await renewalCandidates(scope, policyId);
  const draft = draftRenewal({
    current: currentTerms(policy),
    quote: renewal.quote,
    eligibility: policy.eligibility,
    members,
    cdAvailable: formatPaise(toPaise(policy.cd_balance) - toPaise(policy.cd_held)),
  });
  return {
    renewal,
    policy,
    draft,
    autoConfirmDate: autoConfirmsOn(policy.end_date, config.RENEWAL_AUTO_CONFIRM_DAYS),
  };
}

/**
 * HR's decision (or an operator's, or the workflow's own confirmation). Idempotent: the same
 * decision again answers the renewal as it stands; the other decision after it is ALREADY_DECIDED.
 * Concurrency: moveRenewal lets one decision win; the loser reads the winner's. The workflow is
 * nudged to act at once (best effort: the daily pass nudges it again).
 */
export async function decidePolicyRenewal(
  deps: RenewalDeps,
  scope: TenantScope,
  policyId: string,
  decision: 'CONFIRMED' | 'DECLINED',
  decidedBy: string,
): Promise<RenewalRow> {
  const renewal = await openRenewalOf(scope, policyId);
  const moved = await moveRenewal(scope, renewal.id, ['DRAFT'], decision, { decidedBy });
  const after = (await findRenewal(scope, renewal.id))!;
  if (moved === null) {
    const same =
      decision === 'CONFIRMED'
        ? after.status === 'CONFIRMED' || after.status === 'RENEWED'
        : after.status === 'DECLINED' || after.status === 'EXPIRED';
    if (!same) throw new RenewalRefused('ALREADY_DECIDED', `the renewal is ${after.status}`);
    return after;
  }
  await startDeliveries(deps, scope.em, moved);
  await nudge(deps.temporal, policyId, (await findRenewalPolicy(scope, policyId))!.end_date).catch(
    (err: unknown) =>
      deps.logger.warn({ err: (err as Error).message, policyId }, 'renewal workflow not nudged'),
  );
  return after;
}

async function nudge(temporal: Client, policyId: string, termEnd: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(renewalWorkflowId(policyId, termEnd)).signal(renewalNudgeSignal);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

/** The renewal's state and how long until its next date by the service's clock (D13). */
export async function renewalClock(
  deps: { config: Config; clock: Clock },
  scope: TenantScope,
  policyId: string,
): Promise<RenewalClock> {
  const renewal = await openRenewalOf(scope, policyId);
  const policy = (await findRenewalPolicy(scope, policyId))!;
  const due =
    renewal.status === 'DRAFT'
      ? autoConfirmsOn(policy.end_date, deps.config.RENEWAL_AUTO_CONFIRM_DAYS)
      : renewal.status === 'CONFIRMED'
        ? renewal.term_start
        : nextTerm({ startDate: policy.start_date, endDate: policy.end_date }).startDate;
  return {
    renewalId: renewal.id,
    status: renewal.status,
    dueInMs: Math.max(0, startOfBusinessDay(due) - deps.clock.now().getTime()),
    submitted: renewal.submitted_at !== null,
  };
}

/** The workflow's own confirmation on the day, unless HR decided first (then nothing changes). */
export async function autoConfirmRenewal(deps: DeliveryStartDeps, scope: TenantScope, renewalId: string) {
  const moved = await moveRenewal(scope, renewalId, ['DRAFT'], 'CONFIRMED', { decidedBy: 'auto' });
  if (moved) await startDeliveries(deps, scope.em, moved);
}

/**
 * D14's exchange for a renewal: the insurer's adapter gets the confirmed renewal (file insurers: a
 * renewal CSV through the file writer to their outbox); recorded as sent once it has. Idempotent by
 * renewal id (the adapter's key; a file of the same name replaces itself with the same content).
 */
export async function submitPolicyRenewal(
  deps: { config: Config; clock: Clock; adapters: AdapterRegistry },
  scope: TenantScope,
  policyId: string,
): Promise<void> {
  const view = await readRenewal(scope, deps.config, policyId);
  if (!view || view.renewal.status !== 'CONFIRMED' || view.renewal.submitted_at) return;
  const insurer = await renewalInsurer(scope, view.policy.insurer_id);
  const config = storedAdapterConfig(insurer.code, insurer.adapter, insurer.adapter_settings);
  const member = (m: RenewalDraft['carried'][number] | RenewalDraft['dropped'][number]) => ({
    reference: m.memberId,
    employeeCode: m.employeeCode,
    relationship: m.relationship ?? 'SELF',
    uhid: m.uhid,
    insurerMemberId: m.insurerMemberId,
  });
  const submission: RenewalSubmission = {
    ...config,
    renewalId: view.renewal.id,
    clientId: scope.clientId,
    policyId,
    policyNumber: view.policy.policy_number,
    insurerCode: insurer.code,
    termStart: view.draft.terms.term.startDate,
    termEnd: view.draft.terms.term.endDate,
    slabs: view.draft.terms.slabs,
    premium: view.draft.premiumAfter,
    carried: view.draft.carried.map((m) => ({ ...member(m), sumInsured: m.nextSumInsured })),
    dropped: view.draft.dropped.map((m) => ({ ...member(m), reason: m.reason })),
  };
  if (submission.adapter === 'file') {
    const transport = await transportFor(submission.adapterSettings, {
      dataDir: deps.config.dataDir,
      insurerCode: insurer.code,
    });
    // A CSV: the writer takes nothing from the template but for XLSX (its sheet name).
    const content = await writeInsurerFile(
      { sheet_name: 'Renewal' } as Parameters<typeof writeInsurerFile>[0],
      renewalFileTable(submission),
      'csv',
      deps.clock.now(),
    );
    await transport.deliver(renewalFileName(submission), content);
  } else {
    const adapter = deps.adapters.get(submission.adapter);
    if (adapter.submitRenewal) await adapter.submitRenewal(submission);
  }
  await markRenewalSubmitted(scope, view.renewal.id);
}

/** On the new term's first day: the new policy, its members, the CD balance moved, the old term INACTIVE. */
export async function renewOnStart(
  deps: DeliveryStartDeps & { config: Config },
  scope: TenantScope,
  policyId: string,
): Promise<string | null> {
  const view = await readRenewal(scope, deps.config, policyId);
  if (!view) return null;
  if (view.renewal.status === 'RENEWED') return view.renewal.new_policy_id;
  const done = await completeRenewal(scope, view.renewal, view.draft, view.renewal.quote);
  await startDeliveries(deps, scope.em, done.deliveries);
  return done.newPolicyId;
}

/** A declined term at its end: INACTIVE, the renewal EXPIRED (`policy.expired`), once. */
export async function expireOnEnd(
  deps: DeliveryStartDeps,
  scope: TenantScope,
  policyId: string,
): Promise<void> {
  const renewal = await openRenewalOf(scope, policyId);
  await startDeliveries(deps, scope.em, await expireDeclined(scope, renewal));
}

/**
 * The daily renewal pass: starts the renewal workflow of every ACTIVE policy whose window opened
 * (RENEWAL_LEAD_DAYS before its end, by the service's clock), and nudges the open ones to look at the
 * clock again. Idempotent: the workflow id is the policy's and term's.
 */
export async function startDueRenewals(
  deps: RenewalDeps,
  system: SystemScope,
): Promise<{ started: number; nudged: number }> {
  const due = await listPoliciesDueForRenewal(system, today(deps.clock), deps.config.RENEWAL_LEAD_DAYS);
  for (const p of due) await startRenewalWorkflow(deps, p.client_id, p);
  const open = await listOpenRenewals(system);
  let nudged = 0;
  for (const r of open) {
    const policy = await findRenewalPolicy(TenantScope.of(system.em, r.client_id), r.policy_id);
    if (!policy) continue;
    await nudge(deps.temporal, r.policy_id, policy.end_date);
    nudged += 1;
  }
  return { started: due.length, nudged };
}
