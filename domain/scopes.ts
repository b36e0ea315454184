export const SCOPES = [
  'employee.get',
  'employee.create',
  'employee.update',
  'employee.all',
  'policy.get',
  'policy.list',
  'policy.members.list',
  // Not in D2: an HR integrator's scope for endorsements and census batches (see ENDORSEMENT_SCOPES).
  'policy.endorsements',
  'policy.all',
] as const;
/** What a client (tenant) may be granted. */
export type ClientScope = (typeof SCOPES)[number];

/**
 * What creates (and cancels) endorsements: single ones, a census's and a dependent's own ADDITION.
 * D2 names `policy.all`; `policy.endorsements` is this service's narrower grant of the same,
 * accepted beside it (an extra accepted scope, so every D2 token still works).
 */
export const ENDORSEMENT_SCOPES: readonly ClientScope[] = ['policy.endorsements', 'policy.all'];
/** What reads an endorsement or a census batch: D2's Get Endorsement scopes and the endorsement scope. */
export const ENDORSEMENT_READ_SCOPES: readonly ClientScope[] = ['policy.get', ...ENDORSEMENT_SCOPES];

/** What reads a policy's CD account (its ledger, balance and holds): Get Policy's scopes. */
export const CD_READ_SCOPES: readonly ClientScope[] = ['policy.get', 'policy.all'];
/** What reads which employee is covered on which policy: the coverage lookup's and the members list's. */
export const COVERAGE_READ_SCOPES: readonly ClientScope[] = [
  'policy.get',
  'policy.members.list',
  'policy.all',
];
/** What reads a stored employee's details and family: Get Employee's scopes. */
export const EMPLOYEE_READ_SCOPES: readonly ClientScope[] = ['employee.get', 'employee.all'];

/**
 * D14: what an insurer principal holds, and only it: `insurer.endorsements` reads what waits for
 * the insurer, `insurer.decisions` decides it. Never in SCOPES: a client can never be granted
 * them, and an insurer principal holds nothing else.
 */
export const INSURER_DECISIONS_SCOPE = 'insurer.decisions';
export const INSURER_ENDORSEMENTS_SCOPE = 'insurer.endorsements';
export const INSURER_SCOPES = [INSURER_DECISIONS_SCOPE, INSURER_ENDORSEMENTS_SCOPE] as const;
export type Scope = ClientScope | (typeof INSURER_SCOPES)[number];

const KNOWN = new Set<string>([...SCOPES, ...INSURER_SCOPES]);

/** D2: lower case, `_` and `.` equivalent. Returns null for a name that is not a scope. */
export function normaliseScope(name: string): Scope | null {
  const normalised = name.trim().toLowerCase().replace(/_/g, '.');
  return KNOWN.has(normalised) ? (normalised as Scope) : null;
}

export function hasAnyScope(granted: readonly string[], accepted: readonly Scope[]): boolean {
  return accepted.some((scope) => granted.includes(scope));
}
