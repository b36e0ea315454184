import type { CensusRow } from './rows.js';
import type { PlannedEndorsement, StoredDetails } from './snapshot.js';
export type { StoredDetails } from './snapshot.js';
import type { ExitMode } from '../enums.js';

/** The census's detail cells against the stored fields (the cell's name, then the column's). */
const DETAILS = [
  ['name', 'name'],
  ['email', 'email'],
  ['phone', 'phone_number'],
  ['dateOfBirth', 'date_of_birth'],
  ['gender', 'gender'],
] as const;

/**
 * Whether a row restates an employee's details (a self row, not a delete, with a detail cell given):
 * only such a row is compared with the stored details (changesDetails), so only its employee's are read.
 */
export function restatesDetails(row: CensusRow): boolean {
  return (
    row.relationship === 'self' &&
    row.action !== 'delete' &&
    DETAILS.some(([cell]) => row[cell] !== undefined)
  );
}

/**
 * Whether a self row's details would change the stored employee (upserted by code, D16): a cell
 * given and different from the stored value. Empty cells keep the stored value; a row without the
 * stored details to compare with (a new employee's) changes nothing.
 */
export function changesDetails(row: CensusRow, stored: StoredDetails | undefined): boolean {
  if (!stored || !restatesDetails(row)) return false;
  return DETAILS.some(([cell, column]) => {
    const v = row[cell];
    return v !== undefined && v.trim() !== String(stored[column]).trim();
  });
}

/**
 * A `delete` self row without a policy: the employee leaves (D16's exit). They are set INACTIVE
 * with `date_of_leaving`; in the client's `automatic` exit mode every own cover outlasting that day
 * gets its DELETION at commit, in `proposed` mode those DELETIONs are listed on the employee
 * (Get Employee's `pending_exits`) and none is created.
 */
export interface CensusExit {
  date_of_leaving: string;
  mode: ExitMode;
  deletions: PlannedEndorsement[];
}
