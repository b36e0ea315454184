import { z } from 'zod';

/**
 * Building blocks of the response schemas. Each payload is described once, as zod, beside the
 * presenter that builds it; the presenter's return type is inferred from the schema, so the API
 * reference (generated from these schemas) and the bodies cannot drift apart.
 */

/** A calendar date as the API writes it. */
export const dateOut = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .meta({ format: 'date', example: '2026-04-01' });

/** A service-assigned id (D6); the prefix is not a contract. */
export const idOut = (example: string) => z.string().meta({ example });

/** Money in INR as a JSON number (spec conventions). */
export const moneyOut = z.number().meta({ description: 'INR', example: 7300 });

/** The `message` and `success` every D11 success payload closes with. */
export const outcome = (example: string) => ({
  message: z.string().meta({ example }),
  success: z.literal(true),
});

/** Spec 4.13 / D5 paging fields of List Policies and List Members. */
export const pagingOut = {
  total_count: z.number().int().min(0).meta({ description: 'Rows matching the filters, on every page' }),
  start_cursor: z.string().meta({ description: 'Cursor of the first row; send as last_cursor to go back' }),
  end_cursor: z.string().meta({ description: 'Cursor of the last row; send as start_cursor to go on' }),
  has_previous: z.boolean(),
  has_next: z.boolean(),
};
