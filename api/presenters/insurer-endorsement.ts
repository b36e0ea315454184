import { z } from 'zod';
import type { BacklogRow } from '../../data/insurer-exchange/backlog.js';
import { ENDORSEMENT_STATUSES, ENDORSEMENT_TYPES, GENDERS, RELATIONSHIPS } from '../../domain/enums.js';
import { listedPeople } from '../../domain/insurer-exchange/file.js';
import { dateOut, idOut, moneyOut } from '../schemas/responses.js';

const instantOut = z.string().meta({ format: 'date-time', example: '2026-11-23T09:00:00.000Z' });

/**
 * D14: an endorsement as its insurer sees it: what the insurer's endorsement file carries and no
 * more (the people to enrol with name, relationship, gender and date of birth; never contact data).
 */
export const insurerEndorsementSchema = z
  .object({
    endorsement_id: idOut('end_2p7x9k4m6b').meta({
      description: 'Our reference: the endorsement_id POST /v1/insurer/decisions takes',
    }),
    type: z.enum(ENDORSEMENT_TYPES),
    status: z.enum(ENDORSEMENT_STATUSES),
    policy_id: z.string(),
    policy_number: z.string(),
    employee_code: z.string(),
    members: z
      .array(
        z.object({
          relationship: z.enum(['SELF', ...RELATIONSHIPS]),
          name: z.string(),
          gender: z.enum(GENDERS),
          date_of_birth: dateOut,
        }),
      )
      .meta({
        description:
          "The people the endorsement's file rows list: the employee (SELF) first, then the dependents the " +
          "policy's coverage type covers; a dependent's own endorsement lists that dependent only",
      }),
    coverage_start_date: dateOut,
    coverage_end_date: dateOut,
    sum_insured: moneyOut,
    sent_to_insurer_at: instantOut.nullable().meta({
      description: 'When it went ENDORSEMENT_STATUS_SENT_TO_INSURER (null: never sent)',
    }),
    sla_due_at: instantOut.nullable().meta({
      description:
        "The insurer's SLA: its sla_days (else the service default) after sent_to_insurer_at; past it the " +
        'endorsement is announced as breached, never rejected',
    }),
  })
  .meta({ id: 'InsurerEndorsement', description: 'An endorsement routed to the calling insurer (D14).' });
export type InsurerEndorsementOut = z.infer<typeof insurerEndorsementSchema>;

type Row = Omit<BacklogRow, 'sentToInsurerAt' | 'slaDueAt'> & {
  sentToInsurerAt: string | null;
  slaDueAt: string | null;
};

export function presentInsurerEndorsement(row: Row): InsurerEndorsementOut {
  return {
    endorsement_id: row.endorsementId,
    type: row.type,
    status: row.status,
    policy_id: row.policyId,
    policy_number: row.policyNumber,
    employee_code: row.employeeCode,
    members: listedPeople(row).map((p) => ({
      relationship: p.relationship,
      name: p.name,
      gender: p.gender,
      date_of_birth: p.dateOfBirth,
    })),
    coverage_start_date: row.coverageStartDate,
    coverage_end_date: row.coverageEndDate,
    sum_insured: Number(row.sumInsured),
    sent_to_insurer_at: row.sentToInsurerAt,
    sla_due_at: row.slaDueAt,
  };
}
