import type { MemberStatus } from './enums.js';

/*
 * D10: cover ends on its coverage_end_date, not when the change that set the date was approved. A
 * DELETION (or a grant's end) with a future date leaves the member rows active until that date; from
 * the next day (Asia/Kolkata) on they are inactive. The stored status catches up with the date at the
 * next approval touching the person and in the daily pass (usecases/cover.ts); until then everything a
 * client sees applies this rule (data/member-cover.ts is the same rule in SQL).
 */

/** True once the cover that ends on `coverageEndDate` (inclusive) has ended by `today` (YYYY-MM-DD). */
export function coverEndedBy(coverageEndDate: string, today: string): boolean {
  return coverageEndDate < today;
}

/** The status a client sees on `today`: an active row whose cover has ended is inactive. */
export function memberStatusOn(
  row: { status: MemberStatus; coverage_end_date: string },
  today: string,
): MemberStatus {
  return row.status === 'active' && coverEndedBy(row.coverage_end_date, today) ? 'inactive' : row.status;
}
