import { expect } from 'chai';
import { client, type HttpClient } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { report } from '../support/report.js';
import { seedTenant, type SeededTenant } from '../support/tenants.js';

/**
 * Abuse 11, pre-signed health-card links (D10) across tenants. test/api/health-card.test.ts holds
 * the single-tenant tampering table (flipped signature, changed expiry, swapped ids of a colleague,
 * extra, missing and repeated parameters, the 3601st second); this adds what crosses a tenant:
 * another tenant's employee or policy in a valid link, another tenant's valid signature on this
 * path, and encodings of the same path. Pass: 403 Link Expired or Invalid for each (or 404 Not Found
 * where a re-encoded path matches no route), while both
 * untouched links still serve their own card.
 */
interface Link {
  path: string;
  expires: string;
  signature: string;
}

async function linkOf(http: HttpClient, t: SeededTenant): Promise<Link> {
  const res = await http.get(`/v1/policy/coverage/${t.employeeId}`, { token: t.token });
  expect(res.status, res.text).to.equal(200);
  const entry = res.body.payload.find((e: { policy_id: string }) => e.policy_id === t.policyId);
  const url = new URL(entry.pdf_url);
  return {
    path: url.pathname,
    expires: url.searchParams.get('expires')!,
    signature: url.searchParams.get('signature')!,
  };
}

const full = (l: Link) => `${l.path}?expires=${l.expires}&signature=${l.signature}`;

describe('resilience: health-card links across tenants (D10)', () => {
  let url: string;
  let http: HttpClient;
  let a: SeededTenant;
  let b: SeededTenant;

  before(async function () {
    this.timeout(60_000);
    url = (await stack().startApi()).url;
    http = client(url);
    a = await seedTenant(http, 'ha');
    b = await seedTenant(http, 'hb');
  });

  it('refuses every cross-tenant or re-encoded variant of a valid link with 403', async () => {
    const mine = await linkOf(http, a);
    const theirs = await linkOf(http, b);
    const q = `?expires=${mine.expires}&signature=${mine.signature}`;
    const cases: [string, string][] = [
      ["another tenant's employee in my link", `${mine.path.replace(a.employeeId, b.employeeId)}${q}`],
      ["another tenant's policy in my link", `${mine.path.replace(a.policyId, b.policyId)}${q}`],
      ["another tenant's employee and policy in my link", `${theirs.path}${q}`],
      [
        "another tenant's signature on my path",
        `${mine.path}?expires=${theirs.expires}&signature=${theirs.signature}`,
      ],
      [
        'my signature in upper case',
        `${mine.path}?expires=${mine.expires}&signature=${mine.signature.toUpperCase()}`,
      ],
      ['expires with a leading zero', `${mine.path}?expires=0${mine.expires}&signature=${mine.signature}`],
      [
        '(no route) a slash encoded in the path',
        `${mine.path.replace('/health-card/', '/health-card%2F')}${q}`,
      ],
      ['(no route) a doubled slash', `${mine.path.replace('/health-card/', '/health-card//')}${q}`],
      ['(no route) the extension in upper case', `${mine.path.replace(/\.pdf$/, '.PDF')}${q}`],
      [
        'the employee id percent-encoded',
        `${mine.path.replace(a.employeeId, encodeURIComponent(a.employeeId).replace('_', '%5F'))}${q}`,
      ],
      [
        'a bearer token of the other tenant instead of a signature',
        `${theirs.path}?expires=${theirs.expires}`,
      ],
    ];
    const answers: Record<number, number> = {};
    for (const [label, pathAndQuery] of cases) {
      const res = await fetch(`${url}${pathAndQuery}`, {
        headers: label.includes('bearer') ? { authorization: `Bearer ${b.token}` } : {},
      });
      answers[res.status] = (answers[res.status] ?? 0) + 1;
      const text = await res.text();
      // A re-encoded path may match no route at all: 404 Not Found, which serves nothing either.
      const noRoute = label.startsWith('(no route)') && res.status === 404;
      expect(res.status, `${label}: ${text}`).to.equal(noRoute ? 404 : 403);
      expect(JSON.parse(text), label).to.include(
        noRoute
          ? { type: 'NOT_FOUND', title: 'Not Found' }
          : { type: 'FORBIDDEN', title: 'Link Expired or Invalid' },
      );
      for (const secret of [...a.values, ...b.values]) expect(text, label).to.not.contain(secret);
    }
    const own = await fetch(`${url}${full(mine)}`);
    const other = await fetch(`${url}${full(theirs)}`);
    report('health-card links across tenants', {
      variants: cases.length,
      answers,
      untouched: [own.status, other.status],
    });
    expect(own.status).to.equal(200);
    expect(own.headers.get('content-type')).to.equal('application/pdf');
    expect(other.status).to.equal(200);
  });
});
