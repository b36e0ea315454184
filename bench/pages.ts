/**
 * The start_cursor of page `page` of a list of `pageSize` rows a page (`listUrl` without a query),
 * walked to it 100 rows a call as a caller may, URL-encoded for the next request.
 */
export async function cursorOfPage(
  listUrl: string,
  token: string,
  page: number,
  pageSize = 50,
): Promise<string> {
  let cursor = '';
  let before = (page - 1) * pageSize;
  while (before > 0) {
    const limit = Math.min(100, before);
    const res = await fetch(`${listUrl}?limit=${limit}&start_cursor=${encodeURIComponent(cursor)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!res.ok) throw new Error(`walking ${listUrl}: ${res.status} ${await res.text()}`);
    cursor = ((await res.json()) as { payload: { end_cursor: string } }).payload.end_cursor;
    before -= limit;
  }
  return encodeURIComponent(cursor);
}
