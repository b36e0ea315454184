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
export type Scope = (typeof SCOPES)[number];

const KNOWN = new Set<string>(SCOPES);

/** D2: lower case, `_` and `.` equivalent. Returns null for a name that is not a scope. */
export function normaliseScope(name: string): Scope | null {
  const normalised = name.trim().toLowerCase().replace(/_/g, '.');
  return KNOWN.has(normalised) ? (normalised as Scope) : null;
}

export function hasAnyScope(granted: readonly string[], accepted: readonly Scope[]): boolean {
  return accepted.some((scope) => granted.includes(scope));
}
