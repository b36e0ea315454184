import type { EmployeeStatus, Gender, Relationship } from './enums.js';

export interface NewEmployee {
  employeeCode: string;
  name: string;
  email: string;
  phoneNumber: string;
  dateOfBirth: string;
  gender: Gender;
  status: EmployeeStatus;
  designation?: string | undefined;
  department?: string | undefined;
  dateOfJoining?: string | undefined;
  /** Set when the employee is created already inactive (D6: the day the service learns of it). */
  dateOfLeaving?: string | undefined;
  address?: string | undefined;
  personalEmail?: string | undefined;
  personalPhoneNumber?: string | undefined;
  lastActiveDate?: string | undefined;
}

/** A writable employee field. */
export type EmployeeField = keyof NewEmployee;

/** Who makes a change: the token's id (`jti`), or null for admin commands and loaders. */
export interface Actor {
  tokenId: string | null;
}
export const NO_ACTOR: Actor = { tokenId: null };

/** The key that makes an official email unique per client: case and surrounding spaces do not count (D6). */
export const emailKey = (email: string): string => email.trim().toLowerCase();

/**
 * The fields an update may carry (spec 4.7); date_of_leaving follows status (D6) unless given with an
 * inactive status (D16: the day cover ends).
 */
export type EmployeeChanges = Partial<Omit<NewEmployee, 'employeeCode'>>;

/** Changing the official email to one another employee of the client holds. */
export class EmailInUseError extends Error {}

/** The stored values an update writes, field by field; null clears. */
export type EmployeeValues = Partial<Record<EmployeeField, string | null>>;

/**
 * The values an update asks for, the leaving date included. D6: leaving ACTIVE sets date_of_leaving to
 * today (Asia/Kolkata); returning to ACTIVE clears it; moving between the two inactive statuses keeps
 * the day the employee left.
 */
export function withLeavingDate(
  current: { status: string | null; dateOfLeaving: string | null },
  changes: EmployeeChanges,
  today: string,
): EmployeeValues {
  const { dateOfLeaving: leaving, ...rest } = changes;
  const next: EmployeeValues = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (changes.email !== undefined) next.email = changes.email.trim();
  const status = changes.status ?? current.status;
  if (leaving !== undefined && status !== 'ACTIVE') next.dateOfLeaving = leaving;
  if (changes.status === undefined || changes.status === current.status) return next;
  if (changes.status === 'ACTIVE') next.dateOfLeaving = null;
  else if (current.status === 'ACTIVE' || !current.dateOfLeaving) next.dateOfLeaving = leaving ?? today;
  return next;
}

/** D6: an employee created already inactive left on the day the service learns of it. */
export function withCreationLeavingDate(input: NewEmployee, today: string): NewEmployee {
  return input.status === 'ACTIVE' ? input : { ...input, dateOfLeaving: today };
}

export interface BulkItem {
  employeeId: string;
  lastActiveDate?: string | undefined;
  /** D16: an exit: an inactive status, with the day cover ends (default today, as D6). */
  status?: EmployeeStatus | undefined;
  dateOfLeaving?: string | undefined;
}

/**
 * The status changes of a bulk update (D16 exits), as withLeavingDate decides them per employee, a
 * later item winning; unchanged ones left out.
 */
export function leavingChanges(
  items: readonly BulkItem[],
  current: ReadonlyMap<string, { status: string | null; dateOfLeaving: string | null }>,
  today: string,
): [string, EmployeeValues][] {
  const wanted = new Map<string, EmployeeValues>();
  for (const { employeeId, status, dateOfLeaving } of items) {
    const now = current.get(employeeId);
    if (!now || (status === undefined && dateOfLeaving === undefined)) continue;
    const next = withLeavingDate(now, { status, dateOfLeaving }, today);
    if (next.status === now.status) delete next.status;
    if (next.dateOfLeaving === now.dateOfLeaving) delete next.dateOfLeaving;
    if (Object.keys(next).length > 0) wanted.set(employeeId, next);
  }
  return [...wanted];
}

export interface NewDependent {
  name: string;
  relationship: Relationship;
  dateOfBirth: string;
  gender: Gender;
  /** D16: marriage, birth or adoption: when a dependent joins an employee already covered. */
  eventDate?: string | undefined;
}
