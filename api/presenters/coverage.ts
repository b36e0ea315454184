import { z } from 'zod';
import type { CoverageRow } from '../../data/coverage.js';
import { COVERAGE_TYPES, POLICY_TYPES } from '../../domain/enums.js';
import { dateOut, moneyOut } from '../schemas/responses.js';

/** Spec 2.6. */
export const coverageEntrySchema = z
  .object({
    policy_id: z.string(),
    policy_number: z.string(),
    insurer_name: z.string(),
    insurer_logo: z.string(),
    product_name: z.string(),
    category: z.string().meta({ example: 'Group Health' }),
    tpa_name: z.string(),
    type: z.enum(POLICY_TYPES),
    coverage_type: z.enum(COVERAGE_TYPES),
    start_date: dateOut,
    end_date: dateOut,
    coverage_start_date: dateOut,
    coverage_end_date: dateOut,
    sum_insured: moneyOut,
    network_hospital_url: z.string().nullable(),
    pdf_url: z
      .url()
      .meta({ description: 'Pre-signed health card link, valid 1 hour, no bearer token (D10)' }),
    uhid: z.string().nullable().meta({ description: "The insurer's Unique Health ID; null until assigned" }),
  })
  .meta({ id: 'CoverageEntry', description: 'One policy actively covering the employee today (spec 2.6).' });
export type CoverageEntry = z.infer<typeof coverageEntrySchema>;

/**
 * A coverage entry (spec 2.6). network_hospital_url is the policy's own list, else the insurer's, else
 * null; uhid is null until the insurer assigns one (D10). Money leaves as a JSON number.
 */
export function presentCoverageEntry(row: CoverageRow, pdfUrl: string): CoverageEntry {
  return {
    policy_id: row.policy_id,
    policy_number: row.policy_number,
    insurer_name: row.insurer_name,
    insurer_logo: row.insurer_logo,
    product_name: row.product_name,
    category: row.category,
    tpa_name: row.tpa_name,
    type: row.type,
    coverage_type: row.coverage_type,
    start_date: row.start_date,
    end_date: row.end_date,
    coverage_start_date: row.coverage_start_date,
    coverage_end_date: row.coverage_end_date,
    sum_insured: Number(row.sum_insured),
    network_hospital_url: row.network_hospital_url,
    pdf_url: pdfUrl,
    uhid: row.uhid,
  };
}

/** Spec 4.11: the bare array, one entry per covering policy. */
export const coveragePayload = z.array(coverageEntrySchema).min(1).meta({ id: 'CoveragePayload' });
