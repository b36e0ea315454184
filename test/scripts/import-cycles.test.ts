import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { importCycles } from '../../scripts/check-import-cycles.js';

describe('the import-cycle check of npm run lint', () => {
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gh-cycles-'));
    const files: Record<string, string> = {
      'a.ts': "import type { B } from './b.js';\nexport interface A { b: B }\n",
      'b.ts': "import { c } from './sub/index.js';\nexport type B = typeof c;\n",
      'sub/index.ts': "export type { A } from '../a.js';\nexport const c = 1;\n",
      'd.ts': "import { c } from './sub/index.js';\nexport const d = c;\n",
    };
    for (const [name, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await fs.writeFile(path.join(dir, name), text);
    }
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('finds a cycle through type-only imports, re-exports and an index module, and nothing else', () => {
    const names = (cycles: string[][]) => cycles.map((c) => c.map((f) => path.relative(dir, f)));
    const all = ['a.ts', 'b.ts', 'sub/index.ts', 'd.ts'].map((f) => path.join(dir, f));
    expect(names(importCycles(all))).to.deep.equal([['a.ts', 'b.ts', 'sub/index.ts']]);
    expect(importCycles([path.join(dir, 'd.ts'), path.join(dir, 'sub/index.ts')])).to.deep.equal([]);
  });
});
