import { expect } from 'chai';
import type { HttpClient } from './http.js';

/** The paging fields of spec 4.13 plus the list under `listKey`. */
export interface PageBody {
  total_count: number;
  start_cursor: string;
  end_cursor: string;
  has_previous: boolean;
  has_next: boolean;
  [list: string]: unknown;
}

export type Query = Record<string, string | undefined>;

export const withQuery = (path: string, query: Query): string => {
  const defined = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
  return defined.length ? `${path}?${new URLSearchParams(defined).toString()}` : path;
};

/** GETs one page and checks it is a 200 with every paging field typed as 4.13 says. */
export async function getPage(
  http: HttpClient,
  token: string,
  path: string,
  listKey: string,
  query: Query,
): Promise<PageBody & { ids: string[] }> {
  const res = await http.get(withQuery(path, query), { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const page = res.body.payload as PageBody;
  expect(page.success).to.equal(true);
  expect(page.message).to.be.a('string').and.not.equal('');
  expect(page.total_count).to.be.a('number');
  expect(page.start_cursor).to.be.a('string');
  expect(page.end_cursor).to.be.a('string');
  expect(page.has_previous).to.be.a('boolean');
  expect(page.has_next).to.be.a('boolean');
  const rows = page[listKey] as { id: string }[];
  expect(rows).to.be.an('array');
  if (rows.length === 0) expect([page.start_cursor, page.end_cursor]).to.deep.equal(['', '']);
  else expect(page.start_cursor).to.match(/^[A-Za-z0-9_-]+$/);
  return { ...page, ids: rows.map((r) => r.id) };
}

/**
 * Walks forward from the first page to the last via end_cursor, then back to the first via
 * start_cursor, checking the has_* flags on every page. Returns the forward pages' ids.
 */
export async function walkBothWays(
  http: HttpClient,
  token: string,
  path: string,
  listKey: string,
  query: Query = {},
): Promise<{ pages: string[][]; total: number }> {
  const fetch = (extra: Query) => getPage(http, token, path, listKey, { ...query, ...extra });
  let page = await fetch({});
  expect(page.has_previous, 'first page has_previous').to.equal(false);
  const forward = [page];
  while (page.has_next) {
    expect(forward.length, 'forward walk ends').to.be.below(1000);
    page = await fetch({ start_cursor: page.end_cursor });
    expect(page.has_previous, 'later page has_previous').to.equal(true);
    expect(page.ids, 'a page after has_next is not empty').to.not.be.empty;
    forward.push(page);
  }
  const backward = [page];
  while (page.has_previous) {
    expect(backward.length, 'backward walk ends').to.be.at.most(forward.length);
    page = await fetch({ last_cursor: page.start_cursor });
    expect(page.has_next, 'earlier page has_next').to.equal(true);
    backward.unshift(page);
  }
  expect(backward.map((p) => p.ids)).to.deep.equal(forward.map((p) => p.ids));
  for (const p of forward) expect(p.total_count).to.equal(forward[0]!.total_count);
  return { pages: forward.map((p) => p.ids), total: forward[0]!.total_count };
}
