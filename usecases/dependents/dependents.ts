import { readCoveringPolicies } from '../../data/dependents/endorsements.js';
import { addDependent, listDependents } from '../../data/dependents/dependents.js';
import type { TenantScope } from '../../data/scope.js';
import { today, type Clock } from '../../domain/clock.js';
import {
  ineligible,
  joiningBreaches,
  joiningCover,
  policiesNotJoined,
  policiesToJoin,
  type CoveringPolicy,
} from '../../domain/dependents/endorsements.js';
import { EndorsementRefused } from '../../domain/endorsements/endorsement.js';
import type { Actor, NewDependent } from '../../domain/employees.js';
import { acceptEndorsement } from '../endorsements/endorsements.js';
import { WorkflowNotStarted, type StartDeps } from '../workflow-start.js';

/** One policy the dependent joins: its ADDITION, or why none was started. */
export interface DependentJoin {
  policyId: string;
  endorsementId: string | null;
  reason: string | null;
}

export interface AddedDependent {
  id: string;
  created: boolean;
  endorsements: DependentJoin[];
}

type Person = Pick<NewDependent, 'relationship' | 'dateOfBirth' | 'name'>;
const samePerson = (a: Person, b: Person) =>
  a.relationship === b.relationship &&
  a.dateOfBirth === b.dateOfBirth &&
  a.name.trim().toLowerCase() === b.name.trim().toLowerCase();

/**
 * D16: adds a dependent and, when the employee is covered, starts its own ADDITION on every policy
 * covering the employee and its relationship (`canEndorse`: the token may create endorsements); a
 * covering policy whose coverage type leaves the relationship out is answered with that reason.
 * A new person breaking a policy's eligibility rules is refused (INELIGIBLE) and nothing is written.
 * Idempotent: a repeated add finds the person (data/dependents/dependents.ts) and retries its ADDITIONs, which
 * D7's checks refuse once started (open or covered), so a crash between the two heals on retry.
 * Concurrency: the rules are checked before the insert; two racing adds may both pass the family
 * rules, and the endorsement's own check (at its create) is then the gate.
 */
export async function addDependentToCover(
  deps: StartDeps & { clock: Clock },
  scope: TenantScope,
  employeeId: string,
  input: NewDependent,
  opts: { actor: Actor; canEndorse: boolean },
): Promise<AddedDependent | null> {
  const on = today(deps.clock);
  const existing = await listDependents(scope, employeeId);
  if (!existing) return null;
  const policies = await readCoveringPolicies(scope, employeeId, on);
  if (!existing.some((d) => samePerson(d, input))) {
    const breaches = joiningBreaches(policies, existing, input, on);
    if (breaches.length > 0) throw ineligible(breaches);
  }
  const added = await addDependent(scope, employeeId, input, opts.actor);
  if (!added) return null;
  const endorsements: DependentJoin[] = [];
  for (const policy of policiesToJoin(policies, input.relationship)) {
    endorsements.push(
      await join(deps, scope, { employeeId, dependentId: added.id, input, policy, on }, opts),
    );
  }
  for (const skipped of policiesNotJoined(policies, input.relationship)) {
    endorsements.push({ policyId: skipped.policyId, endorsementId: null, reason: skipped.reason });
  }
  return { ...added, endorsements };
}

interface Joining {
  employeeId: string;
  dependentId: string;
  input: NewDependent;
  policy: CoveringPolicy;
  on: string;
}

async function join(
  deps: StartDeps & { clock: Clock },
  scope: TenantScope,
  j: Joining,
  opts: { actor: Actor; canEndorse: boolean },
): Promise<DependentJoin> {
  const policyId = j.policy.id;
  if (!opts.canEndorse) {
    const reason =
      'the token lacks an endorsement scope (policy.endorsements or policy.all): create it with POST /v1/policy/endorsements';
    return { policyId, endorsementId: null, reason };
  }
  const cover = joiningCover(j.policy, j.input, j.on);
  try {
    const created = await acceptEndorsement(
      deps,
      scope,
      {
        employeeId: j.employeeId,
        policyId,
        dependentId: j.dependentId,
        type: 'ENDORSEMENT_TYPE_ADDITION',
        coverageStartDate: cover.start,
        coverageEndDate: cover.end,
      },
      opts.actor,
    );
    return { policyId, endorsementId: created.id, reason: null };
  } catch (err) {
    if (err instanceof EndorsementRefused)
      return { policyId, endorsementId: null, reason: refusalReason(err) };
    if (err instanceof WorkflowNotStarted) {
      return {
        policyId,
        endorsementId: null,
        reason: 'the workflow engine is unreachable: add the dependent again',
      };
    }
    throw err;
  }
}

const refusalReason = (err: EndorsementRefused) => (err.detail ? `${err.code}: ${err.detail}` : err.code);
