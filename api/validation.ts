import { z } from 'zod';
import type { ApiError } from './errors.js';
import { validationError } from './errors.js';
import { describeIssues } from '../domain/schemas/issues.js';
import { MAX_JSON_DEPTH, MAX_JSON_NODES } from '../domain/upload-limits.js';
import { tooDeep, tooManyValues } from './json-scan.js';

export { describeIssues };

/**
 * Deeper than any request of the API (bounds the recursion of everything that reads the input
 * later), and more values than any request carries (keeps every later reader, zod and the
 * idempotency hash, cheap whatever the body): domain/upload-limits.ts. A JSON body is counted
 * against both as it is read (api/json-scan.ts); this walk checks any input, parsed or not.
 */
export { MAX_JSON_DEPTH as MAX_INPUT_DEPTH, MAX_JSON_NODES as MAX_INPUT_NODES };

/**
 * Input no schema should have to think about: a string holding U+0000 (PostgreSQL text cannot store
 * it), JSON nested deeper than MAX_INPUT_DEPTH (recursive readers such as the idempotency hash would
 * overflow the stack) and more than MAX_INPUT_NODES values. Walked iteratively over three parallel
 * stacks and one shared path (the walk is depth-first, so `path[0..depth)` is always the current
 * node's ancestry): no allocation per node, so a hostile body costs time linear in its size only.
 */
export function unsafeInput(input: unknown): string | null {
  const values: unknown[] = [input];
  const depths: number[] = [0];
  const keys: (string | number)[] = [''];
  const path: (string | number)[] = [];
  const field = () => (path.length > 0 ? path.join('.') : 'body');
  let nodes = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    const key = keys.pop()!;
    path.length = Math.max(0, depth - 1);
    if (depth > 0) path[depth - 1] = key;
    if (++nodes > MAX_JSON_NODES) {
      return tooManyValues();
    }
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return `${field()}: must not contain NUL characters`;
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_JSON_DEPTH) return tooDeep(path[0]!);
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          values.push(value[i]);
          depths.push(depth + 1);
          keys.push(i);
        }
      } else {
        for (const child in value) {
          if (!Object.hasOwn(value, child)) continue;
          if (child.includes('\u0000')) return `${field()}: must not contain NUL characters`;
          values.push((value as Record<string, unknown>)[child]);
          depths.push(depth + 1);
          keys.push(child);
        }
      }
    }
  }
  return null;
}

/** The one place request input is checked; `make` lets a route choose another error than VALIDATION_ERROR. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  make: (detail: string, issues: readonly z.core.$ZodIssue[]) => ApiError = (d) => validationError(d),
): z.output<S> {
  const unsafe = unsafeInput(input);
  if (unsafe) throw validationError(unsafe);
  const result = schema.safeParse(input);
  if (!result.success) throw make(describeIssues(result.error.issues, input), result.error.issues);
  return result.data;
}

/** The parameter names a query schema declares (none when the route takes no query). */
function declaredParams(schema: z.ZodType | undefined): ReadonlySet<string> {
  return new Set(schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);
}

/**
 * The one place query strings are checked: a parameter the route does not declare, or one given more
 * than once, is refused before the route's schema reads the values (bodies are strict the same way).
 */
export function parseQuery<S extends z.ZodType>(
  schema: S | undefined,
  query: Record<string, string | string[] | undefined>,
  make: (detail: string) => ApiError = (d) => validationError(d),
): z.output<S> | undefined {
  const declared = declaredParams(schema);
  const issues: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (!declared.has(name)) issues.push(`${name}: is not an allowed parameter`);
    else if (Array.isArray(value)) issues.push(`${name}: must be given once`);
  }
  if (issues.length > 0) throw make(issues.slice(0, 5).join('; '));
  return schema ? parseInput(schema, query, make) : undefined;
}

const noBody = z.strictObject(
  {},
  { error: 'must be a JSON object without fields (this request takes no body)' },
);

/** A write route that takes no body refuses one with fields, as every strict body does (D6). */
export function parseNoBody(method: string, input: unknown): undefined {
  if (method !== 'GET' && input !== undefined && input !== null) parseInput(noBody, input);
  return undefined;
}
