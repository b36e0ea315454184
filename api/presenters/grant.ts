import { z } from 'zod';
import type { GrantItemRow, GrantRow } from '../../data/grants/grants.js';
import { ENDORSEMENT_STATUSES, GRANT_STATUSES } from '../../domain/enums.js';

const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .meta({ format: 'date', example: '2026-04-01' });

/** D9's endorsement entry, plus the policies the grant skipped or could not enrol. */
export const grantEndorsementSchema = z
  .object({
    endorsement_id: z.string().nullable().meta({ description: 'null when the policy was SKIPPED or FAILED' }),
    policy_id: z.string(),
    status: z.union([z.enum(ENDORSEMENT_STATUSES), z.enum(['SKIPPED', 'FAILED'])]).meta({
      description:
        "The endorsement's status; SKIPPED when the employee was already covered (or an endorsement was " +
        'already open) on the policy; FAILED when the endorsement could not be created',
    }),
    detail: z.string().nullable().meta({
      description: 'Why the policy was skipped or failed, or the rejection reason; null otherwise',
    }),
  })
  .meta({ id: 'GrantEndorsement' });

/** D9. */
export const grantSchema = z
  .object({
    request_id: z.string().meta({ example: 'grt_4k2m9x7b1p' }),
    employee_id: z.string(),
    start_date: date,
    end_date: date,
    status: z.enum(GRANT_STATUSES),
    endorsements: z.array(grantEndorsementSchema),
  })
  .meta({ id: 'Grant', description: 'A grant request and its endorsements (D9).' });
export type GrantOut = z.infer<typeof grantSchema>;

/** Spec 4.12: the request was accepted and its workflow started. */
export const grantAcceptedPayload = z
  .object({
    request_id: z.string().meta({ example: 'grt_4k2m9x7b1p' }),
    message: z.string().meta({ example: 'Grant request accepted' }),
    success: z.literal(true),
  })
  .meta({ id: 'GrantAcceptedPayload' });

export const grantPayload = z
  .object({
    grant: grantSchema,
    message: z.string().meta({ example: 'Grant fetched successfully' }),
    success: z.literal(true),
  })
  .meta({ id: 'GrantPayload' });

function presentItem(item: GrantItemRow): GrantOut['endorsements'][number] {
  if (item.outcome !== 'ENDORSEMENT' || !item.endorsement_status) {
    return {
      endorsement_id: null,
      policy_id: item.policy_id,
      status: item.outcome === 'SKIPPED' ? 'SKIPPED' : 'FAILED',
      detail: item.detail,
    };
  }
  return {
    endorsement_id: item.endorsement_id,
    policy_id: item.policy_id,
    status: item.endorsement_status,
    detail: item.endorsement_status === 'ENDORSEMENT_STATUS_REJECTED' ? item.rejection_reason : null,
  };
}

export function presentGrant(row: GrantRow, items: readonly GrantItemRow[]): GrantOut {
  return {
    request_id: row.id,
    employee_id: row.employee_id,
    start_date: row.start_date,
    end_date: row.end_date,
    status: row.status,
    endorsements: items.map(presentItem),
  };
}
