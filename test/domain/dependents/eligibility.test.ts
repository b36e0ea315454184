import { expect } from 'chai';
import {
  ageOn,
  childAgesOut,
  DEFAULT_ELIGIBILITY_RULES,
  eligibilityBreaches,
  eligibilityRules,
  type EligibilityCheck,
  type JoiningDependent,
} from '../../../domain/dependents/eligibility.js';

const ON = '2026-06-15';
const check = (dependent: JoiningDependent, o: Partial<EligibilityCheck> = {}): string[] =>
  eligibilityBreaches({
    rules: eligibilityRules(),
    existing: [],
    dependent,
    on: ON,
    joiningCoveredEmployee: true,
    ...o,
  }).map((b) => b.rule);

describe('dependent eligibility (D16)', () => {
  it('defaults to D16 and lets a policy override single rules', () => {
    expect(eligibilityRules()).to.deep.equal(DEFAULT_ELIGIBILITY_RULES);
    const rules = eligibilityRules({ maxChildren: 3, childMaxAge: undefined });
    expect(rules.maxChildren).to.equal(3);
    expect(rules.childMaxAge).to.equal(25);
  });

  it('counts age in completed years', () => {
    expect(ageOn('2000-06-15', '2026-06-15')).to.equal(26);
    expect(ageOn('2000-06-16', '2026-06-15')).to.equal(25);
    expect(childAgesOut(eligibilityRules(), '2000-06-16', '2026-06-15')).to.equal(false);
    expect(childAgesOut(eligibilityRules(), '2000-06-15', '2026-06-15')).to.equal(true);
  });

  describe('life-event window', () => {
    it('accepts a spouse within 30 days of the marriage and refuses one later', () => {
      const spouse = { relationship: 'SPOUSE', dateOfBirth: '1995-01-01' } as const;
      expect(check({ ...spouse, eventDate: '2026-05-16' })).to.deep.equal([]);
      expect(check({ ...spouse, eventDate: '2026-05-15' })).to.deep.equal(['LIFE_EVENT_WINDOW']);
    });

    it('needs the date of marriage for a spouse joining a covered employee', () => {
      expect(check({ relationship: 'SPOUSE', dateOfBirth: '1995-01-01' })).to.deep.equal([
        'LIFE_EVENT_DATE_REQUIRED',
      ]);
    });

    it('takes a newborn within 30 days of the birth, its birth being the event', () => {
      expect(check({ relationship: 'CHILD', dateOfBirth: '2026-06-01' })).to.deep.equal([]);
      expect(check({ relationship: 'CHILD', dateOfBirth: '2026-05-01' })).to.deep.equal([
        'LIFE_EVENT_WINDOW',
      ]);
      expect(
        check({ relationship: 'CHILD', dateOfBirth: '2020-05-01', eventDate: '2026-06-10' }),
      ).to.deep.equal([]);
    });

    it('refuses an event in the future or before the birth', () => {
      const spouse = { relationship: 'SPOUSE', dateOfBirth: '1995-01-01' } as const;
      expect(check({ ...spouse, eventDate: '2026-06-16' })).to.deep.equal(['LIFE_EVENT_DATE_INVALID']);
      expect(check({ ...spouse, eventDate: '1994-01-01' })).to.deep.equal(['LIFE_EVENT_DATE_INVALID']);
    });

    it("waives the window while the policy's mid-term window is open, and honours a longer one", () => {
      const late = { relationship: 'SPOUSE', dateOfBirth: '1995-01-01', eventDate: '2025-01-01' } as const;
      const open = eligibilityRules({ midTermWindow: { from: '2026-06-01', to: '2026-06-30' } });
      const closed = eligibilityRules({ midTermWindow: { from: '2026-07-01', to: '2026-07-31' } });
      expect(check(late, { rules: open })).to.deep.equal([]);
      expect(check(late, { rules: closed })).to.deep.equal(['LIFE_EVENT_WINDOW']);
      expect(check(late, { rules: eligibilityRules({ lifeEventWindowDays: 600 }) })).to.deep.equal([]);
    });

    it('does not apply before the employee is covered, nor to parents', () => {
      expect(check({ relationship: 'SPOUSE', dateOfBirth: '1995-01-01' }, { joiningCoveredEmployee: false }))
        .to.be.empty;
      expect(check({ relationship: 'PARENT', dateOfBirth: '1960-01-01' })).to.be.empty;
    });
  });

  describe('ages', () => {
    it('covers children up to 25 and parents up to 80, each overridable', () => {
      const child = { relationship: 'CHILD', dateOfBirth: '2000-01-01', eventDate: ON } as const;
      expect(check(child)).to.deep.equal(['CHILD_AGE_LIMIT']);
      expect(check(child, { rules: eligibilityRules({ childMaxAge: 26 }) })).to.be.empty;
      const parent = { relationship: 'PARENT_IN_LAW', dateOfBirth: '1945-06-15' } as const;
      expect(check(parent)).to.deep.equal(['PARENT_AGE_LIMIT']);
      expect(check(parent, { rules: eligibilityRules({ parentMaxAge: 85 }) })).to.be.empty;
    });
  });

  describe('family', () => {
    const child = { relationship: 'CHILD', dateOfBirth: '2026-06-10' } as const;
    const twoChildren = [
      { relationship: 'CHILD', dateOfBirth: '2020-01-01' },
      { relationship: 'CHILD', dateOfBirth: '2022-01-01' },
    ] as const;

    it('covers at most 2 children unless the policy says otherwise', () => {
      expect(check(child, { existing: twoChildren.slice(0, 1) })).to.be.empty;
      expect(check(child, { existing: twoChildren })).to.deep.equal(['MAX_CHILDREN']);
      expect(check(child, { existing: twoChildren, rules: eligibilityRules({ maxChildren: 3 }) })).to.be
        .empty;
    });

    it('covers parents or parents-in-law, not both, unless the policy allows it', () => {
      const father = [{ relationship: 'PARENT', dateOfBirth: '1960-01-01' }] as const;
      const inLaw = { relationship: 'PARENT_IN_LAW', dateOfBirth: '1962-01-01' } as const;
      expect(check(inLaw, { existing: father })).to.deep.equal(['PARENTS_AND_PARENTS_IN_LAW']);
      expect(check({ ...inLaw, relationship: 'PARENT' }, { existing: father })).to.be.empty;
      const allowed = eligibilityRules({ parentsWithParentsInLaw: true });
      expect(check(inLaw, { existing: father, rules: allowed })).to.be.empty;
    });

    it('lists every breach at once, each with a message naming the rule', () => {
      const breaches = eligibilityBreaches({
        rules: eligibilityRules(),
        existing: twoChildren,
        dependent: { relationship: 'CHILD', dateOfBirth: '1990-01-01' },
        on: ON,
        joiningCoveredEmployee: true,
      });
      expect(breaches.map((b) => b.rule)).to.deep.equal([
        'LIFE_EVENT_WINDOW',
        'CHILD_AGE_LIMIT',
        'MAX_CHILDREN',
      ]);
      expect(breaches[1]!.message).to.equal('date_of_birth: a child is covered up to age 25');
      for (const b of breaches) expect(b.message).to.not.include('1990');
    });
  });
});
