import type { Relationship } from './enums.js';

export interface CoveredPerson {
  name: string;
  /** null for the employee; the dependent's relationship otherwise. */
  relationship: Relationship | null;
}

/** Everything a health card prints. */
export interface HealthCardData {
  memberName: string;
  employeeCode: string;
  policyNumber: string;
  insurerName: string;
  tpaName: string;
  productName: string;
  category: string;
  uhid: string | null;
  sumInsured: string;
  coverageStartDate: string;
  coverageEndDate: string;
  policyStartDate: string;
  policyEndDate: string;
  coveredPersons: CoveredPerson[];
}

const RELATIONSHIP_LABEL: Record<Relationship, string> = {
  SPOUSE: 'Spouse',
  CHILD: 'Child',
  PARENT: 'Parent',
  PARENT_IN_LAW: 'Parent-in-law',
};

/** How a card names a covered person: `Asha Rao (Spouse)`, the employee as `Self`. */
export const coveredPersonLine = (person: CoveredPerson): string =>
  `${person.name} (${person.relationship ? RELATIONSHIP_LABEL[person.relationship] : 'Self'})`;

/** `300000.00` -> `INR 3,00,000`, paise kept when present; string work only, no floating point. */
export function formatInr(amount: string): string {
  const [whole = '0', paise = ''] = amount.split('.');
  const last3 = whole.slice(-3);
  const rest = whole.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ',');
  const grouped = rest ? `${rest},${last3}` : last3;
  return `INR ${grouped}${/^0*$/.test(paise) ? '' : `.${paise.padEnd(2, '0')}`}`;
}

/** A file name that survives any header or file system: `health-card-POL-2026-001.pdf`. */
export function healthCardFileName(policyNumber: string): string {
  const safe = policyNumber.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  return `health-card-${safe || 'policy'}.pdf`;
}
