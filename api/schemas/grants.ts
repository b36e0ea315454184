import { z } from 'zod';
import type { GrantRequest } from '../../domain/grants/grant.js';
import { calendarDate, idParam } from './common.js';

const id = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(64, 'must be at most 64 characters');

/** Spec 4.12 (strict: an unknown field is a 400 naming it); D9: start_date before end_date. */
export const grantBody = z
  .strictObject(
    {
      employee_id: id,
      start_date: calendarDate,
      end_date: calendarDate,
      policy_id: id.nullish(),
    },
    { error: (iss) => (iss.code === 'invalid_type' ? 'must be an object' : undefined) },
  )
  .refine((b) => b.start_date < b.end_date, {
    path: ['start_date'],
    message: 'must be before end_date',
  });
export type GrantBody = z.output<typeof grantBody>;

export const grantParams = z.object({
  request_id: idParam.meta({ description: 'The grant request id, as Grant policy answers it' }),
});
export type GrantParams = z.output<typeof grantParams>;

export const toGrantRequest = (body: GrantBody): GrantRequest => ({
  employeeId: body.employee_id,
  policyId: body.policy_id ?? undefined,
  startDate: body.start_date,
  endDate: body.end_date,
});
