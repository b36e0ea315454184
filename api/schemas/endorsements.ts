import { z } from 'zod';
import type { EndorsementRequest } from '../../domain/endorsements/endorsement.js';
import type { EndorsementType } from '../../domain/enums.js';
import { isCalendarDate } from '../../domain/dates.js';
import { normaliseAmount, toPaise } from '../../domain/premium.js';
import { ApiError, validationError } from '../errors.js';
import { idParam } from './common.js';

const id = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(64, 'must be at most 64 characters');

/**
 * D7: the short and the prefixed spellings. MODIFICATION changes a covered member's sum insured;
 * REINSTATEMENT (D17) restores the cover a DELETION ended, within the reinstatement window.
 */
const TYPES: Record<string, EndorsementType> = {
  ADDITION: 'ENDORSEMENT_TYPE_ADDITION',
  DELETION: 'ENDORSEMENT_TYPE_DELETION',
  MODIFICATION: 'ENDORSEMENT_TYPE_MODIFICATION',
  REINSTATEMENT: 'ENDORSEMENT_TYPE_REINSTATEMENT',
  ENDORSEMENT_TYPE_ADDITION: 'ENDORSEMENT_TYPE_ADDITION',
  ENDORSEMENT_TYPE_DELETION: 'ENDORSEMENT_TYPE_DELETION',
  ENDORSEMENT_TYPE_MODIFICATION: 'ENDORSEMENT_TYPE_MODIFICATION',
  ENDORSEMENT_TYPE_REINSTATEMENT: 'ENDORSEMENT_TYPE_REINSTATEMENT',
};

/**
 * Spec 4.9, shape only (strict: an unknown field is a 400 naming it). `type`, the dates and
 * sum_insured are checked by parseEndorsementRequest in D7's order, because their errors differ
 * (INVALID_ENDORSEMENT_TYPE, MISSING_ADDITION_DETAILS, VALIDATION_ERROR).
 */
export const createEndorsementBody = z
  .strictObject(
    {
      employee_id: id,
      policy_id: id.nullish(),
      type: z
        .unknown()
        .optional()
        .meta({
          type: 'string',
          enum: Object.keys(TYPES),
          description: 'The short and the `ENDORSEMENT_TYPE_` prefixed spellings are the same (D7)',
        }),
      coverage_start_date: z
        .unknown()
        .optional()
        .meta({
          type: 'string',
          format: 'date',
          description:
            'Required but for a REINSTATEMENT (for an ADDITION, MISSING_ADDITION_DETAILS when absent); a ' +
            "REINSTATEMENT names no dates: its cover resumes the day after the DELETION's last covered day",
        }),
      coverage_end_date: z
        .unknown()
        .optional()
        .meta({
          type: 'string',
          format: 'date',
          description:
            'Required but for a REINSTATEMENT (for an ADDITION, MISSING_ADDITION_DETAILS when absent); a ' +
            "REINSTATEMENT names no dates: its cover runs to the deleted cover's original end",
        }),
      dependent_id: id.nullish().meta({
        description:
          'D16: a dependent (`dep_…`) of the employee: an ADDITION enrols only that person beside the covered ' +
          "employee (one life at the employee's sum insured, the policy's eligibility rules applied); a DELETION " +
          "ends only that person's cover. Not accepted with a REINSTATEMENT",
      }),
      sum_insured: z
        .unknown()
        .optional()
        .meta({
          type: 'number',
          description:
            "INR, one of the policy's slabs; default the policy's default. ADDITION and MODIFICATION only " +
            "(a DELETION ignores it, a REINSTATEMENT refuses it: the member's sum insured comes back)",
        }),
    },
    { error: (iss) => (iss.code === 'invalid_type' ? 'must be an object' : undefined) },
  )
  // type and the dates are checked after the shape, in D7's order, so the schema admits them absent;
  // the reference states type required, as it is, and the dates in their descriptions (required but
  // for a REINSTATEMENT, D17).
  .meta({ required: ['employee_id', 'type'] });
export type CreateEndorsementBody = z.output<typeof createEndorsementBody>;

export const endorsementParams = z.object({
  endorsement_id: idParam.meta({ description: 'The endorsement id, as Create endorsement answers it' }),
});
export type EndorsementParams = z.output<typeof endorsementParams>;

export const invalidType = () =>
  new ApiError(
    400,
    'INVALID_ENDORSEMENT_TYPE',
    'Invalid endorsement type',
    'type: must be one of ADDITION, DELETION, MODIFICATION, REINSTATEMENT',
  );

export const missingAdditionDetails = (fields: string[]) =>
  new ApiError(
    400,
    'MISSING_ADDITION_DETAILS',
    'Missing addition details',
    `${fields.join(', ')}: required for an ADDITION`,
  );

const DATE_FIELDS = ['coverage_start_date', 'coverage_end_date'] as const;

/** The request's checks that need no database, in D7's order; returns the domain request. */
export function parseEndorsementRequest(body: CreateEndorsementBody): EndorsementRequest {
  const type = typeof body.type === 'string' ? TYPES[body.type] : undefined;
  if (!type) throw invalidType();
  if (type === 'ENDORSEMENT_TYPE_REINSTATEMENT') return reinstatementRequest(body);

  const missing = DATE_FIELDS.filter((f) => body[f] === undefined || body[f] === null || body[f] === '');
  if (missing.length > 0) {
    if (type === 'ENDORSEMENT_TYPE_ADDITION') throw missingAdditionDetails(missing);
    throw validationError(missing.map((f) => `${f}: is required`).join('; '));
  }
  for (const f of DATE_FIELDS) {
    if (typeof body[f] !== 'string' || !isCalendarDate(body[f])) {
      throw validationError(`${f}: must be a real calendar date in YYYY-MM-DD form`);
    }
  }
  return {
    employeeId: body.employee_id,
    policyId: body.policy_id ?? undefined,
    type,
    coverageStartDate: body.coverage_start_date as string,
    coverageEndDate: body.coverage_end_date as string,
    sumInsured: sumInsured(body.sum_insured, type),
    ...(body.dependent_id && { dependentId: body.dependent_id }),
  };
}

/** What a REINSTATEMENT names and why the rest is refused: the DELETION it reverses decides them (D17). */
const REINSTATEMENT_REFUSES = {
  coverage_start_date: "the cover resumes the day after the DELETION's last covered day",
  coverage_end_date: "the cover runs to the deleted cover's original end",
  sum_insured: "the member's sum insured before the DELETION comes back",
  dependent_id: 'the employee is reinstated with the dependents whose cover ended with theirs',
} as const;

/**
 * D17: employee_id and, optionally, policy_id (else the policy of the employee's most recent
 * DELETION); the period and the sum insured are implied by the DELETION, so naming them is a 400
 * rather than a value silently ignored.
 */
function reinstatementRequest(body: CreateEndorsementBody): EndorsementRequest {
  const named = (Object.keys(REINSTATEMENT_REFUSES) as (keyof typeof REINSTATEMENT_REFUSES)[]).filter(
    (f) => body[f] !== undefined && body[f] !== null,
  );
  if (named.length > 0) {
    throw validationError(
      named.map((f) => `${f}: not accepted for a REINSTATEMENT (${REINSTATEMENT_REFUSES[f]})`).join('; '),
    );
  }
  // The dates are the decision's (decideReinstatement), stored in place of these.
  return {
    employeeId: body.employee_id,
    policyId: body.policy_id ?? undefined,
    type: 'ENDORSEMENT_TYPE_REINSTATEMENT',
    coverageStartDate: '',
    coverageEndDate: '',
  };
}

/** A positive amount in INR (a JSON number, or a decimal string as policy slabs are listed). */
function sumInsured(value: unknown, type: EndorsementType): string | undefined {
  if (value === undefined || value === null) {
    if (type === 'ENDORSEMENT_TYPE_MODIFICATION')
      throw validationError('sum_insured: is required for a MODIFICATION');
    return undefined;
  }
  // Spec 4.9: sum_insured applies only to ADDITION (and here MODIFICATION); a DELETION ignores it.
  if (type === 'ENDORSEMENT_TYPE_DELETION') return undefined;
  if ((typeof value === 'number' || typeof value === 'string') && isPositiveAmount(value)) {
    return normaliseAmount(value);
  }
  throw validationError('sum_insured: must be a positive amount with at most 2 decimals');
}

function isPositiveAmount(value: number | string): boolean {
  try {
    return toPaise(value) > 0n;
  } catch {
    return false;
  }
}
