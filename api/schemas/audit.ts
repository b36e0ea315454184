import { z } from 'zod';
import { AUDIT_ENTITIES } from '../../domain/audit.js';
import { oneDirection, pageQueryFields } from '../paging.js';

export { AUDIT_ENTITIES, type AuditEntity } from '../../domain/audit.js';

/**
 * `entity` is required and matched case-insensitively; `entity_id` is optional: without it the page
 * walks every record of that kind of the client, in the order the entries were written.
 */
export const auditQuery = z
  .object({
    entity: z
      .string()
      .transform((v) => v.trim().toLowerCase())
      .pipe(z.enum(AUDIT_ENTITIES, { error: `must be one of ${AUDIT_ENTITIES.join(', ')}` }))
      .meta({
        type: 'string',
        enum: [...AUDIT_ENTITIES],
        description: 'The kind of record (matched case-insensitively)',
      }),
    entity_id: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(64, 'must be at most 64 characters')
      .optional()
      .meta({ description: "One record's id; without it, every record of that kind" }),
    ...pageQueryFields,
  })
  .superRefine(oneDirection);
export type AuditQuery = z.output<typeof auditQuery>;
