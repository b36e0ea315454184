import { rotateSecret } from '../../usecases/clients.js';
import { createTokenService } from '../../api/auth/tokens.js';
import { expect } from 'chai';
import { fixedClock } from '../../domain/clock.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeMember,
  makePolicy,
  makeReferenceData,
  sql,
  type TestClient,
} from '../support/factories.js';
import { client } from '../support/http.js';
import { pdfText } from '../support/pdf-text.js';
import { stack } from '../support/stack.js';

const NOW = '2026-11-22T06:00:00Z';

interface Fetched {
  status: number;
  headers: Headers;
  bytes: Buffer;
  json: any;
}

/** A browser-like fetch of a link: no token, raw bytes kept (a PDF is not text). */
async function fetchLink(
  apiUrl: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
): Promise<Fetched> {
  const res = await fetch(`${apiUrl}${pathAndQuery}`, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').includes('json')
    ? JSON.parse(bytes.toString())
    : undefined;
  return { status: res.status, headers: res.headers, bytes, json };
}

/** The pdf_url as its path and query, to be sent to the test API (the base URL is the configured one). */
const pathOf = (pdfUrl: string) => {
  const url = new URL(pdfUrl);
  return { path: url.pathname, query: url.search.slice(1), full: `${url.pathname}${url.search}` };
};

const tokenSettings = () => {
  const cfg = stack().config;
  return { keys: cfg.JWT_SIGNING_KEYS, issuer: cfg.JWT_ISSUER, audience: cfg.JWT_AUDIENCE };
};

describe('health card through the pre-signed pdf_url (D10)', () => {
  const clock = fixedClock(NOW);
  let apiUrl: string;
  let c: TestClient;
  let employee: Awaited<ReturnType<typeof makeEmployee>>;
  let policy: Awaited<ReturnType<typeof makePolicy>>;
  let second: Awaited<ReturnType<typeof makePolicy>>;
  let colleague: Awaited<ReturnType<typeof makeEmployee>>;

  const coverageOf = async (employeeId: string, clientToken = c.token(['policy.get'], clock)) => {
    const res = await client(apiUrl).get(`/v1/policy/coverage/${employeeId}`, { token: clientToken });
    expect(res.status).to.equal(200);
    return res.body.payload as { policy_id: string; pdf_url: string }[];
  };
  const linkFor = async (employeeId: string, policyId: string) =>
    pathOf((await coverageOf(employeeId)).find((entry) => entry.policy_id === policyId)!.pdf_url);

  before(async () => {
    apiUrl = (await stack().startApi({ clock })).url;
    c = await makeClient();
    const ref = await makeReferenceData(c.clientId, { insurerName: 'Care Health Insurance' });
    policy = await makePolicy(c.clientId, { reference: ref, policyNumber: 'GHI/2026/0042' });
    second = await makePolicy(c.clientId);
    employee = await makeEmployee(c.clientId, { name: 'Asha Verma', employeeCode: `EMP-${Date.now()}` });
    colleague = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, employee, { sumInsured: '500000.00', start: '2026-05-01' });
    await makeMember(c.clientId, second.id, employee);
    await makeMember(c.clientId, policy.id, colleague);
    const spouse = await makeDependent(c.clientId, employee.id, {
      name: 'Ravi Verma',
      relationship: 'SPOUSE',
    });
    const child = await makeDependent(c.clientId, employee.id, { name: 'Mira Verma', relationship: 'CHILD' });
    const parent = await makeDependent(c.clientId, employee.id, {
      name: 'Kamala Verma',
      relationship: 'PARENT',
    });
    await makeMember(c.clientId, policy.id, employee, { dependentId: spouse.id, sumInsured: '500000.00' });
    await makeMember(c.clientId, policy.id, employee, { dependentId: child.id, sumInsured: '500000.00' });
    // Removed from the policy: not on the card.
    await makeMember(c.clientId, policy.id, employee, { dependentId: parent.id, status: 'inactive' });
  });

  it('serves a real PDF without a token, with a safe file name and no caching', async () => {
    const link = await linkFor(employee.id, policy.id);
    const res = await fetchLink(apiUrl, link.full);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    expect(res.headers.get('content-disposition')).to.equal(
      'attachment; filename="health-card-GHI-2026-0042.pdf"',
    );
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    expect(Number(res.headers.get('content-length'))).to.equal(res.bytes.length);
    expect(res.bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');

    const lines = (await pdfText(res.bytes)).text.split('\n');
    for (const line of [
      'Member name: Asha Verma',
      `Employee ID: ${employee.employeeCode}`,
      'Policy number: GHI/2026/0042',
      'Insurer: Care Health Insurance',
      'TPA: Medi Assist',
      'Product: Group Care',
      'UHID: pending',
      'Sum insured: INR 5,00,000',
      'Valid from: 2026-05-01 to 2027-03-31',
      'Policy period: 2026-04-01 to 2027-03-31',
      'Asha Verma (Self)',
      'Ravi Verma (Spouse)',
      'Mira Verma (Child)',
    ]) {
      expect(lines, line).to.include(line);
    }
    expect(lines.join('\n')).to.not.contain('Kamala');
  });

  it('prints the UHID once assigned', async () => {
    await sql(
      'update policy_members set uhid = ? where policy_id = ? and employee_id = ? and dependent_id is null',
      ['UHID-SEC-9', second.id, employee.id],
    );
    const res = await fetchLink(apiUrl, (await linkFor(employee.id, second.id)).full);
    expect(res.status).to.equal(200);
    const { text } = await pdfText(res.bytes);
    expect(text).to.contain('UHID: UHID-SEC-9');
    expect(text).to.contain(`Policy number: ${second.policyNumber}`);
  });

  it('refuses every tampered link with 403 Link Expired or Invalid', async () => {
    const link = await linkFor(employee.id, policy.id);
    const { expires, signature } = Object.fromEntries(new URLSearchParams(link.query)) as Record<
      string,
      string
    >;
    const flipped = signature!.slice(0, -1) + (signature!.endsWith('0') ? '1' : '0');
    const swappedEmployee = link.path.replace(employee.id, colleague.id);
    const swappedPolicy = link.path.replace(policy.id, second.id);
    const cases: [string, string][] = [
      ['flipped signature character', `${link.path}?expires=${expires}&signature=${flipped}`],
      ['expires changed', `${link.path}?expires=${Number(expires) + 1}&signature=${signature}`],
      ['employee id swapped (a covered colleague)', `${swappedEmployee}?${link.query}`],
      ['policy id swapped (another covering policy)', `${swappedPolicy}?${link.query}`],
      ['extra parameter', `${link.full}&download=1`],
      ['missing signature', `${link.path}?expires=${expires}`],
      ['missing expires', `${link.path}?signature=${signature}`],
      ['no query at all', link.path],
      ['repeated signature', `${link.full}&signature=${signature}`],
      ['repeated expires', `${link.path}?expires=${expires}&expires=${expires}&signature=${signature}`],
    ];
    for (const [label, pathAndQuery] of cases) {
      const res = await fetchLink(apiUrl, pathAndQuery);
      expect(res.status, label).to.equal(403);
      expect(res.json, label).to.deep.equal({
        type: 'FORBIDDEN',
        title: 'Link Expired or Invalid',
        detail: 'request a fresh pdf_url from the coverage lookup',
        instance: pathAndQuery.split('?')[0],
      });
    }
    // The untouched link still works, and a bearer token does not stand in for a signature.
    expect((await fetchLink(apiUrl, link.full)).status).to.equal(200);
    const withToken = await fetchLink(apiUrl, `${link.path}?expires=${expires}&signature=${flipped}`, {
      authorization: `Bearer ${c.token(['policy.all'], clock)}`,
    });
    expect(withToken.status).to.equal(403);
  });

  it('ends every outstanding link when the client rotates its secret', async () => {
    const own = await makeClient();
    const person = await makeEmployee(own.clientId);
    const cover = await makePolicy(own.clientId);
    await makeMember(own.clientId, cover.id, person);
    const linkOf = async (secretVersion: number) => {
      const token = createTokenService({ ...tokenSettings(), clock }).issue(
        own.clientId,
        ['policy.get'],
        secretVersion,
      );
      const res = await client(apiUrl).get(`/v1/policy/coverage/${person.id}`, { token });
      expect(res.status).to.equal(200);
      return pathOf(res.body.payload[0].pdf_url as string);
    };
    const before = await linkOf(1);
    expect((await fetchLink(apiUrl, before.full)).status).to.equal(200);

    await rotateSecret(stack().orm.em.fork(), own.clientId);
    const res = await fetchLink(apiUrl, before.full);
    expect(res.status).to.equal(403);
    expect(res.json).to.include({ title: 'Link Expired or Invalid' });
    expect((await fetchLink(apiUrl, (await linkOf(2)).full)).status).to.equal(200);
  });

  it('works for the whole hour and is 403 once the link is 3601 s old', async () => {
    const own = fixedClock(NOW);
    const ownUrl = (await stack().startApi({ clock: own })).url;
    const res = await client(ownUrl).get(`/v1/policy/coverage/${employee.id}`, {
      token: c.token(['policy.get'], own),
    });
    const link = pathOf(
      res.body.payload.find((x: { policy_id: string }) => x.policy_id === policy.id).pdf_url,
    );

    own.advance(3599_000);
    expect((await fetchLink(ownUrl, link.full)).status).to.equal(200);
    own.advance(1000); // exactly 3600 s: the expiry second itself
    expect((await fetchLink(ownUrl, link.full)).status).to.equal(200);
    own.advance(1000); // 3601 s
    const expired = await fetchLink(ownUrl, link.full);
    expect(expired.status).to.equal(403);
    expect(expired.json).to.include({
      type: 'FORBIDDEN',
      title: 'Link Expired or Invalid',
      instance: link.path,
    });
  });

  it('answers a valid link for an employee no longer covered on that policy with 404 Employee Not Covered', async () => {
    const leaver = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, leaver);
    const link = await linkFor(leaver.id, policy.id);
    await sql(`update policy_members set status = 'inactive' where policy_id = ? and employee_id = ?`, [
      policy.id,
      leaver.id,
    ]);
    const res = await fetchLink(apiUrl, link.full);
    expect(res.status).to.equal(404);
    expect(res.json).to.deep.equal({
      type: 'NOT_FOUND',
      title: 'Employee Not Covered',
      detail: '',
      instance: link.path,
    });
  });

  it('answers a valid link 404 Employee Not Covered once its policy is no longer ACTIVE', async () => {
    const own = await makePolicy(c.clientId);
    const member = await makeEmployee(c.clientId);
    await makeMember(c.clientId, own.id, member);
    const link = await linkFor(member.id, own.id);
    await sql(`update policies set status = 'POLICY_STATUS_SUSPENDED' where id = ?`, [own.id]);
    const res = await fetchLink(apiUrl, link.full);
    expect(res.status).to.equal(404);
    expect(res.json).to.include({ type: 'NOT_FOUND', title: 'Employee Not Covered' });
  });

  it('shows only the link’s own client’s data when two clients share the service', async () => {
    const other = await makeClient();
    const otherPolicy = await makePolicy(other.clientId, { policyNumber: 'GHI/2026/0042' });
    const otherEmployee = await makeEmployee(other.clientId, {
      name: 'Asha Verma',
      employeeCode: employee.employeeCode,
    });
    await makeMember(other.clientId, otherPolicy.id, otherEmployee, { uhid: 'UHID-OTHER-CLIENT' });
    const link = pathOf(
      (await coverageOf(otherEmployee.id, other.token(['policy.get'], clock))).find(
        (x) => x.policy_id === otherPolicy.id,
      )!.pdf_url,
    );

    const mine = await pdfText((await fetchLink(apiUrl, (await linkFor(employee.id, policy.id)).full)).bytes);
    const theirs = await pdfText((await fetchLink(apiUrl, link.full)).bytes);
    expect(theirs.text).to.contain('UHID: UHID-OTHER-CLIENT');
    expect(theirs.text).to.not.contain('Ravi Verma');
    expect(mine.text).to.not.contain('UHID-OTHER-CLIENT');
  });
});
