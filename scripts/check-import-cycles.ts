import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm run lint`: no import cycles among the service's modules, type-only imports included (a type
 * that two modules need lives below both). Reads every relative `import`/`export … from` of the
 * layers and reports each cycle as its modules; exits 1 when there is one.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const LAYERS = [
  'activities',
  'adapters',
  'admin',
  'api',
  'config',
  'data',
  'db',
  'domain',
  'examples',
  'infra',
  'scripts',
  'usecases',
  'worker',
  'workflows',
];
const IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

function modules(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function resolve(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** The strongly connected components with more than one module (Tarjan). */
export function importCycles(files: readonly string[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].flatMap((m) => resolve(file, m[1]!) ?? []);
    graph.set(file, targets);
  }
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cycles = importCycles(LAYERS.flatMap((layer) => modules(path.join(ROOT, layer))));
  for (const cycle of cycles) {
    console.error(`import cycle: ${cycle.map((f) => path.relative(ROOT, f)).join(' <-> ')}`);
  }
  if (cycles.length > 0) {
    console.error('move the type or function both sides need into a module below them');
    process.exitCode = 1;
  } else console.log('no import cycles');
}
