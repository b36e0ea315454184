import type { EndorsementType, InsurerAdapterName } from './enums.js';

/**
 * What an adapter sends to an insurer. Built by the submit activity from PostgreSQL; it never
 * travels through Temporal payloads, so a real adapter may add the member's personal details here.
 */
export interface InsurerSubmission {
  endorsementId: string;
  clientId: string;
  policyId: string;
  policyNumber: string;
  insurerId: string;
  insurerCode: string;
  adapter: InsurerAdapterName;
  employeeId: string;
  /** The client's own employee identifier. */
  employeeCode: string;
  type: EndorsementType;
  coverageStartDate: string;
  coverageEndDate: string;
  sumInsured: string;
  premiumImpact: string;
}
