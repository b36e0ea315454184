import { expect } from 'chai';
import { fileTemplate } from '../../../domain/insurer-exchange/file-templates/index.js';
import { parseResponseTable, type ResponseTableRow } from '../../../domain/insurer-exchange/response-file.js';
import {
  planResponseRows,
  type CandidateDependent,
} from '../../../domain/insurer-exchange/response-people.js';

const census = fileTemplate('india-census');
const A = 'end_aaaaaaaaaaaaaaaaaaaaaa';
const B = 'end_bbbbbbbbbbbbbbbbbbbbbb';
/** The template's own response headers (the insurer's file as the template describes it). */
const HEADER = census.response.columns.map((c) => c.header);
const family: CandidateDependent[] = [
  { dependent_id: 'dep_spouse', relationship: 'SPOUSE', date_of_birth: '1991-01-01' },
  { dependent_id: 'dep_child1', relationship: 'CHILD', date_of_birth: '2015-03-01' },
  { dependent_id: 'dep_child2', relationship: 'CHILD', date_of_birth: '2018-07-09' },
];

function plan(...rows: string[][]) {
  const table: ResponseTableRow[] = [HEADER, ...rows].map((cells, i) => ({ rowNumber: i + 1, cells }));
  const parsed = parseResponseTable(census.response, table);
  if (!parsed.ok) throw new Error(parsed.error);
  const made = planResponseRows(census, parsed.rows, (id) => (id === A ? family : []));
  return {
    sent: made.sent.map((s) => [s.row.rowNumber, s.decision]),
    problems: [...made.problems].map(([r, why]) => [r.rowNumber, why]),
    leads: [...made.leadOf].map(([r, lead]) => [r.rowNumber, lead.rowNumber]),
  };
}

describe('domain: the persons of a response file (D14)', () => {
  it("makes one decision per reference, the employee's, carrying each dependent's UHID by id", () => {
    expect(
      plan(
        [A, 'Endorsed', 'UH-E', 'M-1', '', 'Self', '17/05/1990'],
        [A, 'Endorsed', 'UH-S', 'M-2', '', 'spouse', ''],
        [A, 'Endorsed', 'UH-C2', '', '', 'Child', '09/07/2018'],
        [A, 'Endorsed', 'UH-C1', '', '', 'Child', '2015-03-01'],
        [B, 'Rejected', '', '', 'Age above limit', '', ''],
      ),
    ).to.deep.equal({
      sent: [
        [
          2,
          {
            decision: 'APPROVED',
            uhid: 'UH-E',
            insurer_member_id: 'M-1',
            members: [
              { dependent_id: 'dep_spouse', uhid: 'UH-S' },
              { dependent_id: 'dep_child2', uhid: 'UH-C2' },
              { dependent_id: 'dep_child1', uhid: 'UH-C1' },
            ],
          },
        ],
        [6, { decision: 'REJECTED', rejection_reason: 'Age above limit' }],
      ],
      problems: [],
      leads: [
        [3, 2],
        [4, 2],
        [5, 2],
      ],
    });
  });

  it('leaves an unmatched, ambiguous or repeated person without a UHID and says which; the decision stands', () => {
    const twins = plan(
      [A, 'Endorsed', 'UH-C', '', '', 'Child', ''],
      [A, 'Endorsed', 'UH-E', '', '', '', ''],
      [A, 'Endorsed', 'UH-P', '', '', 'Parent', '01/01/1960'],
      [A, 'Endorsed', 'UH-X', '', '', 'Cousin', ''],
      [A, 'Endorsed', 'UH-S', '', '', 'Spouse', '02/02/1992'],
      [A, 'Endorsed', 'UH-C1', '', '', 'Child', '01/03/2015'],
      [A, 'Endorsed', 'UH-C1b', '', '', 'Child', '01/03/2015'],
      [A, 'Rejected', '', '', 'no', 'Child', '09/07/2018'],
    );
    expect(twins.sent).to.deep.equal([
      [3, { decision: 'APPROVED', uhid: 'UH-E', members: [{ dependent_id: 'dep_child1', uhid: 'UH-C1' }] }],
    ]);
    expect(twins.problems).to.deep.equal([
      [2, 'person not matched: ambiguous: 2 covered Child'],
      [4, 'person not matched: no covered Parent with this date of birth'],
      [5, "person not matched: relationship Cousin is not one of the template's codes"],
      [6, 'person not matched: no covered Spouse with this date of birth'],
      [8, 'person not matched: the same person as row 7'],
      [9, "person's decision differs from row 3's, which decides this reference"],
    ]);
  });

  it("lets a dependent's row decide a reference without an employee row, without the employee's ids", () => {
    expect(plan([A, 'Endorsed', 'UH-S', 'M-2', '', 'Spouse', '01/01/1991']).sent).to.deep.equal([
      [2, { decision: 'APPROVED', members: [{ dependent_id: 'dep_spouse', uhid: 'UH-S' }] }],
    ]);
  });
});
