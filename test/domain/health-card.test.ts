import { expect } from 'chai';
import { formatInr, healthCardFileName, type HealthCardData } from '../../domain/health-card.js';
import { renderHealthCard } from '../../usecases/coverage/health-card.js';
import { pdfText } from '../support/pdf-text.js';

const card = (over: Partial<HealthCardData> = {}): HealthCardData => ({
  memberName: 'Asha Verma',
  employeeCode: 'E-1001',
  policyNumber: 'POL/2026/001',
  insurerName: 'Star Health',
  tpaName: 'Medi Assist',
  productName: 'Group Care Plus',
  category: 'Group Health',
  uhid: null,
  sumInsured: '500000.00',
  coverageStartDate: '2026-05-01',
  coverageEndDate: '2027-03-31',
  policyStartDate: '2026-04-01',
  policyEndDate: '2027-03-31',
  coveredPersons: [
    { name: 'Asha Verma', relationship: null },
    { name: 'Ravi Verma', relationship: 'SPOUSE' },
    { name: 'Mira Verma', relationship: 'CHILD' },
    { name: 'Kamala Iyer', relationship: 'PARENT_IN_LAW' },
  ],
  ...over,
});

const ISSUED = new Date('2026-11-22T06:00:00Z');

describe('health card PDF', () => {
  it('renders a one-page PDF with every field of the card', async () => {
    const bytes = await renderHealthCard(card(), ISSUED);
    expect(bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    const { pages, text } = await pdfText(bytes);
    expect(pages).to.equal(1);
    const lines = text.split('\n');
    for (const line of [
      'Health Card',
      'Star Health - Group Care Plus (Group Health)',
      'Member name: Asha Verma',
      'Employee ID: E-1001',
      'Policy number: POL/2026/001',
      'Insurer: Star Health',
      'TPA: Medi Assist',
      'Product: Group Care Plus',
      'UHID: pending',
      'Sum insured: INR 5,00,000',
      'Valid from: 2026-05-01 to 2027-03-31',
      'Policy period: 2026-04-01 to 2027-03-31',
      'Covered persons',
      'Asha Verma (Self)',
      'Ravi Verma (Spouse)',
      'Mira Verma (Child)',
      'Kamala Iyer (Parent-in-law)',
    ]) {
      expect(lines, line).to.include(line);
    }
  });

  it('prints the UHID once the insurer has assigned one', async () => {
    const { text } = await pdfText(await renderHealthCard(card({ uhid: 'UHID-77001' }), ISSUED));
    expect(text).to.contain('UHID: UHID-77001');
    expect(text).to.not.contain('pending');
  });

  it('flows a long list of covered persons onto further pages without losing anyone', async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      name: `Child ${i + 1}`,
      relationship: 'CHILD' as const,
    }));
    const { pages, text } = await pdfText(
      await renderHealthCard(
        card({ coveredPersons: [{ name: 'Asha Verma', relationship: null }, ...many] }),
        ISSUED,
      ),
    );
    expect(pages).to.be.greaterThan(1);
    for (const person of many) expect(text.split('\n')).to.include(`${person.name} (Child)`);
  });

  it('formats rupees with Indian digit grouping from the exact decimal string', () => {
    expect(formatInr('0.00')).to.equal('INR 0');
    expect(formatInr('999.00')).to.equal('INR 999');
    expect(formatInr('1000.00')).to.equal('INR 1,000');
    expect(formatInr('300000.00')).to.equal('INR 3,00,000');
    expect(formatInr('12345678.50')).to.equal('INR 1,23,45,678.50');
    expect(formatInr('100000000.05')).to.equal('INR 10,00,00,000.05');
  });

  it('names the file after the policy number with only safe characters', () => {
    expect(healthCardFileName('POL/2026/001')).to.equal('health-card-POL-2026-001.pdf');
    expect(healthCardFileName('GHI 12"; x=1')).to.equal('health-card-GHI-12-x-1.pdf');
    expect(healthCardFileName('///')).to.equal('health-card-policy.pdf');
  });
});
