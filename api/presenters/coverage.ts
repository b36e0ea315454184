import type { CoverageRow } from '../../domain/coverage.js';

/**
 * A coverage entry (spec 2.6). network_hospital_url is the policy's own list, else the insurer's, else
 * null; uhid is null until the insurer assigns one (D10). Money leaves as a JSON number.
 */
export function presentCoverageEntry(row: CoverageRow, pdfUrl: string) {
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
