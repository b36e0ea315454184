import { readFileSync } from 'node:fs';

/** A line the SQL hook wrote. */
interface Statement {
  t: number;
  entry: string;
  conn: string;
  text: string;
}

/** One transaction: an explicit begin … commit, or one message sent outside of one. */
export interface Transaction {
  entry: string;
  start: number;
  end: number;
  statements: string[];
}

const isBegin = (text: string) => /^\s*(begin|start transaction)\b/i.test(text);
const isEnd = (text: string) => /^\s*(commit|rollback)\b/i.test(text);

/** Reads the hook's file and groups each connection's statements into transactions. */
export function readTransactions(file: string): Transaction[] {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const open = new Map<string, Transaction>();
  const done: Transaction[] = [];
  for (const s of lines.map((l) => JSON.parse(l) as Statement)) {
    const current = open.get(s.conn);
    if (current) {
      current.statements.push(s.text);
      current.end = s.t;
      if (isEnd(s.text)) {
        done.push(current);
        open.delete(s.conn);
      }
    } else if (isBegin(s.text)) {
      open.set(s.conn, { entry: s.entry, start: s.t, end: s.t, statements: [s.text] });
    } else {
      done.push({ entry: s.entry, start: s.t, end: s.t, statements: [s.text] });
    }
  }
  done.push(...open.values());
  return done.sort((a, b) => a.start - b.start);
}

/** Statements that do work: begin/commit and the row-level-security settings are counted apart. */
export const workStatements = (tx: Transaction): string[] =>
  tx.statements.filter((s) => !isBegin(s) && !isEnd(s));

/** A statement's first words, for a listing (table names, no values). */
export function shortSql(text: string): string {
  const body = text.replace(/^select set_config\([^;]*;\s*/i, '').replace(/\s+/g, ' ');
  const table = /\b(insert into|update|delete from|from)\s+"?([a-z_]+)"?/i.exec(body);
  const verb = body.split(' ')[0]!.toLowerCase();
  return table ? `${verb} ${table[2]}` : body.slice(0, 40);
}
