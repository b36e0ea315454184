export const SCOPES = [
  'employee.get',
  'employee.create',
  'employee.update',
  'employee.all',
  'policy.get',
  'policy.list',
  'policy.members.list',
  'policy.all',
] as const;
/** What a client (tenant) may be granted. */
export type ClientScope = (typeof SCOPES)[number];

/**
 * D14: what an insurer principal holds, and only it. Never in SCOPES: a client can never be
 * granted it, and an insurer principal holds nothing else.
 */
export const INSURER_DECISIONS_SCOPE = 'insurer.decisions';
export const INSURER_SCOPES = [INSURER_DECISIONS_SCOPE] as const;
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
