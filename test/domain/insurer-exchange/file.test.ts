import { expect } from 'chai';
import {
  cutOffDate,
  cutOffTime,
  fileTemplateSchema,
  formatFileDate,
  insurerFileName,
  insurerFileTable,
} from '../../../domain/insurer-exchange/file.js';
import { FILE_TEMPLATES, fileTemplate } from '../../../domain/insurer-exchange/file-templates/index.js';
import { SAMPLE_ENDORSEMENTS } from '../../support/insurer-file-samples.js';

describe('domain: insurer endorsement files (D14)', () => {
  it('writes a date in each template format', () => {
    expect(formatFileDate('2026-02-07', 'YYYY-MM-DD')).to.equal('2026-02-07');
    expect(formatFileDate('2026-02-07', 'DD/MM/YYYY')).to.equal('07/02/2026');
    expect(formatFileDate('2026-02-07', 'DD-MM-YYYY')).to.equal('07-02-2026');
    expect(formatFileDate('2026-12-31', 'DD-MMM-YYYY')).to.equal('31-Dec-2026');
  });

  it('names a file from insurer code, policy number and cut-off instant, the same on every retry', () => {
    const q = {
      insurerCode: 'STAR',
      policyNumber: 'GHI/2026/0042',
      cutOffDate: '2026-11-23',
      cutOffTime: '17:00:00',
    };
    expect(insurerFileName(q, 'xlsx')).to.equal('STAR_GHI-2026-0042_20261123_170000.xlsx');
    expect(insurerFileName(q, 'csv')).to.equal('STAR_GHI-2026-0042_20261123_170000.csv');
    expect(insurerFileName({ ...q, policyNumber: '../../etc' }, 'csv')).to.equal(
      'STAR_etc_20261123_170000.csv',
    );
    expect(insurerFileName({ ...q, cutOffDate: '2026-11-24' }, 'csv')).to.not.equal(
      insurerFileName(q, 'csv'),
    );
    // A flush earlier the same day never shares a name with the scheduled cut-off.
    expect(insurerFileName({ ...q, cutOffTime: '15:04:05' }, 'csv')).to.equal(
      'STAR_GHI-2026-0042_20261123_150405.csv',
    );
  });

  it('reads a cut-off instant as Indian date and time', () => {
    const at = new Date('2026-11-23T18:45:30Z');
    expect([cutOffDate(at, 'Asia/Kolkata'), cutOffTime(at, 'Asia/Kolkata')]).to.deep.equal([
      '2026-11-24',
      '00:15:30',
    ]);
  });

  it('lists the employee, then the dependents the coverage type covers, each row carrying the endorsement id', () => {
    const rows = insurerFileTable(fileTemplate('generic'), SAMPLE_ENDORSEMENTS).slice(1);
    expect(rows.map((r) => [r[0], r[4], r[5]])).to.deep.equal([
      ['end_addition0000000000001', 'Asha Rao', 'SELF'],
      ['end_addition0000000000001', 'Vikram Rao', 'SPOUSE'],
      ['end_addition0000000000001', 'Anya Rao', 'CHILD'],
      ['end_deletion0000000000002', 'Rahul Mehta', 'SELF'],
      ['end_correction00000000003', 'Sam "Sky" Iyer, Jr.', 'SELF'],
    ]);
  });

  it("lists a dependent's own endorsement (D16) as that person's row only", () => {
    const [addition] = SAMPLE_ENDORSEMENTS;
    const child = addition!.dependents.filter((d) => d.relationship === 'CHILD');
    const only = { ...addition!, dependents: child, dependentOnly: true };
    const rows = insurerFileTable(fileTemplate('generic'), [only]).slice(1);
    expect(rows.map((r) => [r[0], r[4], r[5]])).to.deep.equal([
      ['end_addition0000000000001', 'Anya Rao', 'CHILD'],
    ]);
  });

  it("a withdrawal repeats the endorsement's rows with the template's cancellation word", () => {
    const [addition] = SAMPLE_ENDORSEMENTS;
    const action = (name: string, withdrawal: boolean) =>
      insurerFileTable(fileTemplate(name), [{ ...addition!, withdrawal }])
        .slice(1)
        .map((r) => [r[fileTemplate(name).columns.findIndex((c) => c.field === 'action')], r.at(-1)]);
    expect(action('india-census', true)).to.deep.equal([
      ['Cancellation', 'end_addition0000000000001'],
      ['Cancellation', 'end_addition0000000000001'],
      ['Cancellation', 'end_addition0000000000001'],
    ]);
    expect(action('india-census', false).map((r) => r[0])).to.deep.equal([
      'Addition',
      'Addition',
      'Addition',
    ]);
    expect(action('generic', true).map((r) => r[0])).to.deep.equal([
      'CANCELLATION',
      'CANCELLATION',
      'CANCELLATION',
    ]);
  });

  it("carries a REINSTATEMENT (D17) as its own action, effective the day after the deleted cover's end", () => {
    const [addition] = SAMPLE_ENDORSEMENTS;
    const reinstatement = {
      ...addition!,
      endorsementId: 'end_reinstatement00000004',
      type: 'ENDORSEMENT_TYPE_REINSTATEMENT' as const,
      coverageStartDate: '2026-10-16',
      coverageEndDate: '2027-03-31',
    };
    const cells = (name: string) => {
      const t = fileTemplate(name);
      const at = (field: string) => t.columns.findIndex((c) => c.field === field);
      return insurerFileTable(t, [reinstatement])
        .slice(1)
        .map((r) => [r[at('reference')], r[at('action')], r[at('effective_date')], r[at('end_date')]]);
    };
    expect(cells('generic')).to.deep.equal([
      ['end_reinstatement00000004', 'REINSTATEMENT', '2026-10-16', '2027-03-31'],
      ['end_reinstatement00000004', 'REINSTATEMENT', '2026-10-16', '2027-03-31'],
      ['end_reinstatement00000004', 'REINSTATEMENT', '2026-10-16', '2027-03-31'],
    ]);
    expect(cells('india-census').map((r) => r[1])).to.deep.equal([
      'Reinstatement',
      'Reinstatement',
      'Reinstatement',
    ]);
    // Every shipped template names the word: a template without it is refused when loaded.
    const { REINSTATEMENT: _, ...withoutIt } = fileTemplate('generic').actions;
    expect(fileTemplateSchema.safeParse({ ...fileTemplate('generic'), actions: withoutIt }).success).to.equal(
      false,
    );
  });

  it('refuses a template missing a code, a reference column, or with a repeated header', () => {
    const base = FILE_TEMPLATES['india-census']!;
    const noOther = { ...base, genders: { MALE: 'M', FEMALE: 'F' } };
    const noReference = { ...base, columns: base.columns.filter((c) => c.field !== 'reference') };
    const repeated = { ...base, columns: [...base.columns, { header: 'Sr No', field: 'serial' }] };
    for (const bad of [noOther, noReference, repeated, { ...base, date_format: 'MM/DD/YY' }]) {
      expect(fileTemplateSchema.safeParse(bad).success).to.equal(false);
    }
    expect(fileTemplateSchema.safeParse(base).success).to.equal(true);
  });

  it('names the shipped templates when asked for an unknown one', () => {
    expect(() => fileTemplate('acme')).to.throw('generic, india-census');
  });
});
