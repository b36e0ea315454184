import { z } from 'zod';
import type { ApiError } from './errors.js';
import { validationError } from './errors.js';

/** Renders zod issues as `field: rule` so every 400 names the field (D6). */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((k) => `${[...issue.path, k].join('.')}: is not an allowed field`).join('; ');
      }
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

/** Deeper than any request of the API; bounds the recursion of everything that reads the input later. */
export const MAX_INPUT_DEPTH = 32;

/**
 * Input no schema should have to think about: a string holding U+0000 (PostgreSQL text cannot store
 * it) and JSON nested deeper than MAX_INPUT_DEPTH (recursive readers such as the idempotency hash
 * would overflow the stack). Walked iteratively, so the check itself cannot overflow.
 */
export function unsafeInput(input: unknown): string | null {
  const pending: { value: unknown; path: string[] }[] = [{ value: input, path: [] }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    const field = path.length > 0 ? path.join('.') : 'body';
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return `${field}: must not contain NUL characters`;
    } else if (value !== null && typeof value === 'object') {
      if (path.length >= MAX_INPUT_DEPTH) {
        return `${path[0]}: must not nest deeper than ${MAX_INPUT_DEPTH} levels`;
      }
      for (const [key, child] of Object.entries(value)) {
        if (key.includes('\u0000')) return `${field}: must not contain NUL characters`;
        pending.push({ value: child, path: [...path, key] });
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
  if (!result.success) throw make(describeIssues(result.error.issues), result.error.issues);
  return result.data;
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
