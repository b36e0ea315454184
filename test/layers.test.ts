import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The data-access layer owns every statement: SQL appears only under data/ and db/ (migrations, ORM
 * setup). Statements are recognised inside string and template literals, so prose in comments is free.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE_DIRS = [
  'api',
  'activities',
  'adapters',
  'admin',
  'config',
  'domain',
  'infra',
  'scripts',
  'usecases',
  'worker',
  'workflows',
];
const LITERAL = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
const STATEMENT =
  /\b(select\s[\s\S]*?\bfrom\s|select\s+1\b|insert\s+into\s|update\s+\w+\s+set\s|delete\s+from\s|on\s+conflict\b|returning\s)/i;

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('layers: where SQL lives', () => {
  it('no statement outside data/ and db/', () => {
    const offenders = SOURCE_DIRS.flatMap((dir) => sourceFiles(path.join(ROOT, dir))).flatMap((file) => {
      const literals = fs.readFileSync(file, 'utf8').match(LITERAL) ?? [];
      return literals
        .filter((literal) => STATEMENT.test(literal))
        .map((literal) => `${path.relative(ROOT, file)}: ${literal.slice(0, 60).replace(/\s+/g, ' ')}`);
    });
    expect(offenders).to.deep.equal([]);
  });
});
