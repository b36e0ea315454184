import { expect } from 'chai';
import { z } from 'zod';
import { ApiError } from '../../api/errors.js';
import { cursorCodec, oneDirection, pageQueryFields, withCursorErrors } from '../../api/paging.js';
import { readPage, type KeysetQuery } from '../../data/paging.js';
import { TenantScope } from '../../data/scope.js';
import { makeClient, sql } from '../support/factories.js';
import { stack } from '../support/stack.js';

const SECRET = 'paging-test-secret-0123456789abcdef';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('paging cursors', () => {
  const codec = cursorCodec(SECRET);
  const key = ['Asha Rao', 'emp_abc', 0, 'mem_xyz'];

  it('round-trips a key within its scope, opaque and URL-safe', () => {
    const cursor = codec.encode('members:cli_a:pol_1', key);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(cursor).to.not.include('Asha');
    expect(Buffer.from(cursor, 'base64url').toString('latin1')).to.not.include('Asha');
    expect(codec.decode('members:cli_a:pol_1', cursor)).to.deep.equal(key);
    expect(codec.encode('members:cli_a:pol_1', key)).to.equal(cursor);
  });

  it('refuses a cursor of another scope or another secret', () => {
    const cursor = codec.encode('members:cli_a:pol_1', key);
    expect(codec.decode('members:cli_b:pol_1', cursor)).to.equal(null);
    expect(codec.decode('members:cli_a:pol_2', cursor)).to.equal(null);
    expect(codec.decode('policies:cli_a', cursor)).to.equal(null);
    expect(cursorCodec(`${SECRET}-rotated`).decode('members:cli_a:pol_1', cursor)).to.equal(null);
  });

  it('gives a kept cursor only to its own scope and key, also after thousands of others were sealed', () => {
    const first = codec.encode('members:cli_a:pol_1', key);
    const sealedAnew = cursorCodec(SECRET);
    for (let i = 0; i < 5000; i++) codec.encode(`members:cli_${i}:pol_1`, key);
    for (const [scope, other] of [
      ['members:cli_a:pol_1', key],
      ['members:cli_b:pol_1', key],
      ['members:cli_a:pol_1', ['Asha Rao', 'emp_abc', 0, 'mem_xyy']],
      ['members:cli_a:pol_', ['1', ...key]],
    ] as const) {
      const kept = codec.encode(scope, other);
      expect(kept, scope).to.equal(sealedAnew.encode(scope, other));
      expect(codec.decode(scope, kept)).to.deep.equal(other);
    }
    expect(codec.encode('members:cli_a:pol_1', key)).to.equal(first);
  });

  it('refuses every one-character change, truncation, extension and garbage', () => {
    const scope = 'policies:cli_a';
    const cursor = codec.encode(scope, ['2026-04-01', 'pol_1']);
    for (let i = 0; i < cursor.length; i++) {
      const other = B64URL[(B64URL.indexOf(cursor[i]!) + 1) % B64URL.length]!;
      expect(
        codec.decode(scope, `${cursor.slice(0, i)}${other}${cursor.slice(i + 1)}`),
        `position ${i}`,
      ).to.equal(null);
    }
    for (const bad of [
      cursor.slice(0, -1),
      cursor.slice(1),
      `${cursor}A`,
      `${cursor}=`,
      '',
      'abc',
      '..',
      '%00',
    ]) {
      expect(codec.decode(scope, bad), bad).to.equal(null);
    }
  });
});

describe('paging query parameters', () => {
  const schema = z.object(pageQueryFields).superRefine(oneDirection);

  it('defaults limit to 10 and treats empty cursors as absent', () => {
    expect(schema.parse({})).to.deep.equal({ limit: 10 });
    const parsed = schema.parse({ limit: '100', start_cursor: '', last_cursor: 'abc' });
    expect([parsed.limit, parsed.start_cursor, parsed.last_cursor]).to.deep.equal([100, undefined, 'abc']);
  });

  it('refuses limits outside 1..100 and both cursors together', () => {
    for (const limit of ['0', '101', '1e1', '2.0', 'x', '', ['5', '6']]) {
      expect(schema.safeParse({ limit }).success, String(limit)).to.equal(false);
    }
    const both = schema.safeParse({ start_cursor: 'a', last_cursor: 'b' });
    expect(both.success).to.equal(false);
    expect(both.error!.issues[0]!.path).to.deep.equal(['last_cursor']);
  });
});

/** readPage on its own, over a list with a bigint key (the audit trail's shape), both directions. */
describe('readPage', () => {
  const codec = cursorCodec(SECRET);
  let clientId: string;
  let ids: string[];
  let otherId: string;

  before(async () => {
    ({ clientId } = await makeClient());
    const rows = await sql(
      `insert into audit_events (client_id, entity, entity_id, action)
       select ?, 'employee', 'emp_1', 'update' from generate_series(1, 23)
       returning id`,
      [clientId],
    );
    const [other] = await sql(
      `insert into audit_events (client_id, entity, entity_id, action) values (?, 'employee', 'emp_2', 'update')
       returning id`,
      [clientId],
    );
    otherId = String((other as { id: string }).id);
    ids = rows.map((r: { id: string }) => String(r.id));
  });

  const query = (descending: boolean): KeysetQuery => ({
    scope: `audit:${clientId}:emp_1`,
    from: 'audit_events a',
    where: "a.client_id = ? and a.entity = 'employee' and a.entity_id = ?",
    params: [clientId, 'emp_1'],
    select: 'a.id::text as id, a.action',
    key: [{ sql: 'a.id', type: 'bigint' }],
    descending,
    extra: {
      columns: { employee_known: "exists(select 1 from audit_events where entity_id = 'emp_2')" },
      params: [],
    },
  });

  for (const descending of [false, true]) {
    it(`walks ${descending ? 'descending' : 'ascending'} pages forward and back with exact flags`, async () => {
      const scope = TenantScope.of(stack().orm.em, clientId);
      const q = query(descending);
      const expected = descending ? [...ids].reverse() : ids;
      const forward: string[][] = [];
      let page = await readPage<{ id: string }>(scope, codec, q, { limit: 5 });
      expect(page.extra).to.deep.equal({ employee_known: true });
      expect(page.rows[0]).to.have.all.keys('id', 'action');
      forward.push(page.rows.map((r) => r.id));
      while (page.has_next) {
        page = await readPage<{ id: string }>(scope, codec, q, { limit: 5, start_cursor: page.end_cursor });
        expect(page.has_previous).to.equal(true);
        expect(page.total_count).to.equal(23);
        forward.push(page.rows.map((r) => r.id));
      }
      expect(forward.flat()).to.deep.equal(expected);
      expect(forward.map((p) => p.length)).to.deep.equal([5, 5, 5, 5, 3]);
      const backward: string[][] = [page.rows.map((r) => r.id)];
      while (page.has_previous) {
        page = await readPage<{ id: string }>(scope, codec, q, { limit: 5, last_cursor: page.start_cursor });
        expect(page.has_next).to.equal(true);
        backward.unshift(page.rows.map((r) => r.id));
      }
      expect(backward).to.deep.equal(forward);
    });
  }

  it('answers a cursor whose row is not in the list (it left since) with the flags of the rows there', async () => {
    const scope = TenantScope.of(stack().orm.em, clientId);
    const page = async (descending: boolean, key: string, req: 'start_cursor' | 'last_cursor') => {
      const q = query(descending);
      const p = await readPage<{ id: string }>(scope, codec, q, {
        limit: 5,
        [req]: codec.encode(q.scope, [key]),
      });
      return { ids: p.rows.map((r) => r.id), has_previous: p.has_previous, has_next: p.has_next };
    };
    // The other employee's row lies after every row of this list; the key before the first, before them all.
    const before = String(BigInt(ids[0]!) - 1n);
    expect(await page(false, otherId, 'start_cursor')).to.deep.equal({
      ids: [],
      has_previous: true,
      has_next: false,
    });
    expect(await page(false, otherId, 'last_cursor')).to.deep.equal({
      ids: ids.slice(18),
      has_previous: true,
      has_next: false,
    });
    expect(await page(false, before, 'start_cursor')).to.deep.equal({
      ids: ids.slice(0, 5),
      has_previous: false,
      has_next: true,
    });
    expect(await page(false, before, 'last_cursor')).to.deep.equal({
      ids: [],
      has_previous: false,
      has_next: true,
    });
    expect(await page(true, otherId, 'start_cursor')).to.deep.equal({
      ids: ids.slice(18).reverse(),
      has_previous: false,
      has_next: true,
    });
    expect(await page(true, before, 'last_cursor')).to.deep.equal({
      ids: ids.slice(0, 5).reverse(),
      has_previous: true,
      has_next: false,
    });
  });

  it('refuses a sealed cursor whose key does not fit the list', async () => {
    const scope = TenantScope.of(stack().orm.em, clientId);
    const q = query(false);
    for (const key of [[12], ['1', '2'], ['x1'], []] as (string | number)[][]) {
      const cursor = codec.encode(q.scope, key);
      const error = await withCursorErrors(
        readPage(scope, codec, q, { limit: 5, start_cursor: cursor }),
      ).catch((e: unknown) => e);
      expect(error, JSON.stringify(key)).to.be.instanceOf(ApiError);
      expect((error as ApiError).status).to.equal(400);
      expect((error as ApiError).detail).to.equal('start_cursor: is not a valid cursor for this list');
    }
    const fine = await readPage<{ id: string }>(scope, codec, q, {
      limit: 5,
      last_cursor: codec.encode(q.scope, [ids[3]!]),
    });
    expect(fine.rows.map((r) => r.id)).to.deep.equal(ids.slice(0, 3));
  });
});
