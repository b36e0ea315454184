/**
 * Preloaded (NODE_OPTIONS --import) into the bench stack's processes by bench/endorsement-trace.ts:
 * appends every statement a `pg` client sends, with the time, the process's entry and a connection
 * number, to TRACE_SQL_FILE, so one endorsement's statements and transactions can be counted. Plain
 * JavaScript: it loads before tsx, also into worker threads (where it does nothing).
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

const file = process.env.TRACE_SQL_FILE;
if (file && isMainThread) {
  const { default: pg } = await import('pg');
  const entry = path.relative(process.cwd(), process.argv[1] ?? '');
  const query = pg.Client.prototype.query;
  // Each pooled connection gets a number, so a transaction's statements can be told apart.
  const connections = new WeakMap();
  let opened = 0;
  pg.Client.prototype.query = function traced(...args) {
    const text = typeof args[0] === 'string' ? args[0] : args[0]?.text;
    if (!connections.has(this)) connections.set(this, ++opened);
    const conn = `${process.pid}:${connections.get(this)}`;
    if (text) appendFileSync(file, `${JSON.stringify({ t: Date.now(), entry, conn, text })}\n`);
    return query.apply(this, args);
  };
}
