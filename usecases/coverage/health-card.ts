import PDFDocument from 'pdfkit';
import { coveredPersonLine, formatInr, type HealthCardData } from '../../domain/health-card.js';

/**
 * Renders one health card. Standard PDF fonts only (nothing to embed or subset) and no stream compression
 * (a card is ~3 KB either way; deflate roughly doubled the render time): a card takes a few milliseconds.
 * Standard fonts cover Latin-1 (WinAnsi) text; characters outside it do not render.
 */
export function renderHealthCard(card: HealthCardData, issuedAt: Date): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A5',
    layout: 'landscape',
    margin: 28,
    compress: false,
    info: { Title: 'Health card', Creator: 'Group health administration', CreationDate: issuedAt },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font('Helvetica-Bold').fontSize(18).text('Health Card');
  doc.font('Helvetica').fontSize(10).text(`${card.insurerName} - ${card.productName} (${card.category})`);
  doc.moveDown();
  const field = (label: string, value: string) =>
    doc.font('Helvetica-Bold').text(`${label}: `, { continued: true }).font('Helvetica').text(value);
  field('Member name', card.memberName);
  field('Employee ID', card.employeeCode);
  field('Policy number', card.policyNumber);
  field('Insurer', card.insurerName);
  field('TPA', card.tpaName);
  field('Product', card.productName);
  field('UHID', card.uhid ?? 'pending');
  field('Sum insured', formatInr(card.sumInsured));
  field('Valid from', `${card.coverageStartDate} to ${card.coverageEndDate}`);
  field('Policy period', `${card.policyStartDate} to ${card.policyEndDate}`);
  doc.moveDown();
  doc.font('Helvetica-Bold').text('Covered persons');
  doc.font('Helvetica');
  for (const person of card.coveredPersons) {
    doc.text(coveredPersonLine(person));
  }
  doc.end();
  return done;
}
