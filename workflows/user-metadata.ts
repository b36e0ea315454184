import type { EndorsementCodes } from '../domain/endorsements/endorsement.js';
import type { EndorsementType } from '../domain/enums.js';

export type { EndorsementCodes };

/**
 * What the Temporal Web UI shows of a workflow before anyone opens its history: a one-line
 * `staticSummary` in the list and `staticDetails` (Markdown) on its page, set once at start. Ids
 * and codes only, never names or other personal data: user metadata is encrypted like every
 * payload, but a summary is what people read over each other's shoulders. Every start of these
 * workflows (API, reconcilers, grants' children, cut-offs, Schedules) takes its options from here.
 */
export interface UserMetadata {
  staticSummary: string;
  staticDetails: string;
}

export interface EndorsementLabels {
  endorsementId: string;
  clientId: string;
  policyId: string;
  employeeId: string;
  type: EndorsementType;
  /** Absent for starts that did not read them (reconciler, grants): ids stand in. */
  codes?: EndorsementCodes;
}

const short = (type: string) => type.replace(/^ENDORSEMENT_TYPE_/, '');
/** One paragraph per line: the Web UI's Markdown joins single line breaks. */
const lines = (...items: string[]) => items.join('\n\n');

export function endorsementMetadata(e: EndorsementLabels): UserMetadata {
  const id = e.endorsementId;
  const who = e.codes
    ? [
        `policy ${e.codes.policyNumber}`,
        ...(e.codes.insurerCode ? [`insurer ${e.codes.insurerCode}`] : []),
        `employee ${e.codes.employeeCode}`,
      ]
    : [`policy ${e.policyId}`, `employee ${e.employeeId}`];
  return {
    staticSummary: [`${short(e.type)} ${id}`, ...who].join(' · '),
    staticDetails: lines(
      `**Endorsement** \`${id}\` (${short(e.type)}), client \`${e.clientId}\`, policy \`${e.policyId}\`, employee \`${e.employeeId}\``,
      `**API:** \`GET /v1/policy/endorsements/${id}\`, \`POST /v1/policy/endorsements/${id}/cancel\``,
      // D14: a decision only once the insurer has it; the current details say whether it does.
      `**decide, once the insurer received it (the current details say):** \`npm run -s insurer -- approve ${id} --uhid … --member-id …\` · \`npm run -s insurer -- reject ${id} --reason "…"\``,
      `**cancel:** \`npm run -s ops -- cancel ${id}\``,
      `**neighbours:** \`npm run -s ops -- stuck --policy ${e.policyId}\``,
    ),
  };
}

export function grantMetadata(g: { grantId: string; clientId: string; employeeId: string }): UserMetadata {
  const id = g.grantId;
  return {
    staticSummary: `GRANT ${id} · employee ${g.employeeId} · client ${g.clientId}`,
    staticDetails: lines(
      `**Grant** \`${id}\`: one ADDITION per target policy, each its own endorsement workflow`,
      `**API:** \`GET /v1/policy/grant/${id}\``,
      `**its endorsements:** \`EmployeeId = '${g.employeeId}'\` in this list; \`npm run -s ops -- stuck --client ${g.clientId}\``,
    ),
  };
}

export function censusBatchMetadata(b: { batchId: string; clientId: string; rows: number }): UserMetadata {
  const id = b.batchId;
  return {
    staticSummary: `CENSUS ${id} · ${b.rows} rows · client ${b.clientId}`,
    staticDetails: lines(
      `**Census batch** \`${id}\`: ${b.rows} rows applied in chunks, one endorsement workflow per applied row`,
      `**API:** \`GET /v1/policy/endorsements/batches/${id}\``,
      `**its endorsements:** \`BatchId = '${id}'\` in this list`,
    ),
  };
}

export function cutOffMetadata(insurerCode: string, cutOff: string | null): UserMetadata {
  return {
    staticSummary: `CUT-OFF ${insurerCode}${cutOff ? ` at ${cutOff}` : ' (scheduled)'}`,
    staticDetails: lines(
      `**Cut-off** of file insurer \`${insurerCode}\`: one file per policy and format, then SENT_TO_INSURER`,
      `**again now:** \`npm run -s insurer -- flush ${insurerCode}\``,
      `**its Schedule:** \`npm run -s ops -- schedules\` (\`insurer-cut-off-${insurerCode}\`)`,
      `**answers:** \`npm run -s insurer -- ingest ${insurerCode}\``,
    ),
  };
}

/** A Schedule's one-pass workflow (reconcilers, sweeper, cover end, inbox poll). */
export function passMetadata(scheduleId: string, what: string): UserMetadata {
  return {
    staticSummary: `PASS ${scheduleId}: ${what}`,
    staticDetails: lines(
      `**Periodic pass** of the Schedule \`${scheduleId}\`: ${what}`,
      `**state and recent runs:** \`npm run -s ops -- schedules\``,
    ),
  };
}
