import PDFDocument from 'pdfkit';
import { ledgerForMonth } from '../../data/cd-account/ledger.js';
import type { TenantScope } from '../../data/scope.js';
import type { CdEntryKind } from '../../domain/cd-account/account.js';
import { looksLikeId } from '../../domain/ids.js';
import { closingBalance, pricedDays } from '../../domain/policy-year/premium-statement.js';
import { writeCsv, type SheetCell } from '../../infra/spreadsheet-files.js';

/** A person a posting's endorsement covers: the client's own data, read with the CD ledger's scopes. */
export interface StatementMember {
  name: string;
  relationship: string;
}

export interface StatementPosting {
  id: string;
  kind: CdEntryKind;
  /** Signed change of the balance (a debit negative), INR as stored decimal text. */
  amount: string;
  balanceAfter: string;
  endorsementId: string | null;
  endorsementType: string | null;
  members: StatementMember[];
  /** The days the endorsement's premium was pro-rated for; null for a posting of no endorsement. */
  proRataDays: number | null;
  /** A top-up's or adjustment's reference. */
  reference: string | null;
  postedAt: string;
  /** The day it was posted, in India (D13): the day that puts it in this month. */
  postedOn: string;
}

export interface PremiumStatement {
  policyId: string;
  policyNumber: string;
  month: string;
  opening: string;
  postings: StatementPosting[];
  closing: string;
}

/** The policy's statement for one month (its first and last day); undefined when not the client's. */
export async function premiumStatement(
  scope: TenantScope,
  policyId: string,
  month: { label: string; from: string; to: string },
): Promise<PremiumStatement | undefined> {
  if (!looksLikeId('policy', policyId)) return undefined;
  const ledger = await ledgerForMonth(scope, policyId, month);
  if (!ledger) return undefined;
  const postings = ledger.postings.map((row): StatementPosting => ({
    id: row.id,
    kind: row.kind,
    amount: row.amount,
    balanceAfter: row.balance_after,
    endorsementId: row.endorsement_id,
    endorsementType: row.endorsement_type,
    members:
      row.member_name && row.member_relationship
        ? [{ name: row.member_name, relationship: row.member_relationship }]
        : [],
    proRataDays:
      row.endorsement_type && row.coverage_start_date && row.coverage_end_date
        ? pricedDays({
            type: row.endorsement_type,
            coverageStartDate: row.coverage_start_date,
            coverageEndDate: row.coverage_end_date,
            coverEndBefore: row.cover_end_before,
          })
        : null,
    reference: row.reference,
    postedAt: row.created_at,
    postedOn: row.posted_on,
  }));
  const closing = closingBalance(
    ledger.opening,
    postings.map((p) => ({ kind: p.kind, amount: p.amount, balanceAfter: p.balanceAfter })),
  );
  return {
    policyId,
    policyNumber: ledger.policyNumber,
    month: month.label,
    opening: ledger.opening,
    postings,
    closing,
  };
}

export const STATEMENT_CSV_HEADER = [
  'posted_on',
  'kind',
  'endorsement_id',
  'endorsement_type',
  'members',
  'pro_rata_days',
  'reference',
  'amount',
  'balance',
] as const;

const membersText = (members: readonly StatementMember[]): string =>
  members.map((m) => `${m.name} (${m.relationship})`).join('; ');

/**
 * The statement as CSV, through the one spreadsheet writer: a header, an opening row, one row per
 * posting, a closing row. Amounts are numbers (rupees with paise: at most two decimals, exact in a
 * double), so a spreadsheet sums them; names are text and neutralised like every cell of ours.
 */
export function premiumStatementCsv(s: PremiumStatement): Buffer {
  const rows: SheetCell[][] = [[...STATEMENT_CSV_HEADER]];
  rows.push(['', 'opening', '', '', '', '', '', '', Number(s.opening)]);
  for (const p of s.postings) {
    rows.push([
      p.postedOn,
      p.kind,
      p.endorsementId ?? '',
      p.endorsementType ?? '',
      membersText(p.members),
      p.proRataDays ?? '',
      p.reference ?? '',
      Number(p.amount),
      Number(p.balanceAfter),
    ]);
  }
  rows.push(['', 'closing', '', '', '', '', '', '', Number(s.closing)]);
  return writeCsv(rows);
}

/**
 * The statement as a PDF: standard fonts, no compression (as the health card: nothing to embed, text
 * a reader can search). Standard fonts cover Latin-1 only; other characters of a name do not render.
 */
export function premiumStatementPdf(s: PremiumStatement, issuedAt: Date): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 36,
    compress: false,
    info: {
      Title: `Premium statement ${s.month}`,
      Creator: 'Group health administration',
      CreationDate: issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.font('Helvetica-Bold').fontSize(16).text(`Premium statement ${s.month}`);
  doc.font('Helvetica').fontSize(10).text(`Policy ${s.policyNumber} (${s.policyId})`);
  doc.moveDown();
  doc.text(`Opening balance: INR ${s.opening}`);
  doc.moveDown();
  for (const p of s.postings) {
    const what = [p.kind, p.endorsementId, p.reference].filter(Boolean).join(' ');
    doc.font('Helvetica-Bold').text(`${p.postedOn} ${what}: INR ${p.amount}`);
    doc.font('Helvetica');
    if (p.members.length > 0) doc.text(`Members: ${membersText(p.members)}`);
    if (p.proRataDays !== null) doc.text(`Pro-rata days: ${p.proRataDays}`);
    doc.text(`Balance after: INR ${p.balanceAfter}`);
  }
  doc.moveDown();
  doc.font('Helvetica-Bold').text(`Closing balance: INR ${s.closing}`);
  doc.end();
  return done;
}
