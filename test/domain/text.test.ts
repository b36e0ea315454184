import { expect } from 'chai';
import { unsafeTextReason } from '../../domain/text.js';

const cp = (c: number) => String.fromCodePoint(c);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('domain: the text rules (names, codes, free text)', () => {
  const refused: [number[], string][] = [
    [
      [0x200e, 0x200f, 0x061c, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)],
      'bidirectional formatting characters',
    ],
    [[0x200b, 0xfeff, ...range(0x2060, 0x2064)], 'invisible characters'],
    [[0x2028, 0x2029], 'line or paragraph separators'],
    [[0x07, 0x1b, 0x7f, 0x9b], 'control characters'],
  ];
  for (const [chars, why] of refused) {
    for (const c of chars) {
      const hex = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
      it(`refuses ${hex} in a name, a code and free text: ${why}`, () => {
        for (const kind of ['name', 'identifier', 'text', 'multiline'] as const)
          expect(unsafeTextReason(`Asha${cp(c)}Rao`, kind), kind).to.equal(`must not contain ${why}`);
      });
    }
  }

  it('keeps names in any script, the joiners Indic scripts write with included', () => {
    for (const name of [
      'आशा राव',
      'क्\u200dष',
      'ന്\u200c',
      'עברית',
      '名前',
      'José Müller-Lüdenscheidt',
      "O'Brien",
      '😀',
    ])
      expect(unsafeTextReason(name, 'name'), name).to.equal(null);
  });

  it('refuses a name or a code starting as a spreadsheet formula; free text may start so', () => {
    for (const value of ['=1+2', '+91 Rao', '-Smith', '@SUM(1)']) {
      expect(unsafeTextReason(value, 'name')).to.equal('must not start with =, +, - or @');
      expect(unsafeTextReason(value, 'identifier')).to.equal('must not start with =, +, - or @');
      expect(unsafeTextReason(value, 'text')).to.equal(null);
    }
    for (const inside of ['Rao-Iyer', 'E-1001', 'a=b', 'x@y'])
      expect(unsafeTextReason(inside, 'identifier')).to.equal(null);
  });

  it('keeps tab and line breaks in multi-line text only', () => {
    expect(unsafeTextReason('12 MG Road,\r\nBengaluru\t560001', 'multiline')).to.equal(null);
    expect(unsafeTextReason('12 MG Road,\nBengaluru', 'text')).to.equal(
      'must not contain control characters',
    );
  });
});
