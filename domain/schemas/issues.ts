import type { z } from 'zod';

const ABSENCE_CODES = new Set(['invalid_type', 'invalid_value', 'invalid_union']);

/** True when `path` names a key its (object) parent in `input` does not hold. */
function isAbsent(input: unknown, path: readonly PropertyKey[]): boolean {
  let parent = input;
  for (const key of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  const last = path.at(-1);
  if (last === undefined || parent === null || typeof parent !== 'object' || Array.isArray(parent))
    return false;
  return (parent as Record<PropertyKey, unknown>)[last] === undefined;
}

/** The rule an issue breaks, in the same words whichever schema raised it. */
function rule(issue: z.core.$ZodIssue, input: unknown): string {
  if (ABSENCE_CODES.has(issue.code) && isAbsent(input, issue.path)) return 'is required';
  if (issue.path.length === 0 && issue.code === 'invalid_type' && issue.expected === 'object') {
    return 'must be an object';
  }
  return issue.message;
}

/**
 * Renders zod issues as `field: rule` so every 400 names the field (D6). Given the input, a field that
 * is absent reads `is required` and a body that is not an object `must be an object`, whatever
 * message the schema attached to the type check.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], input?: unknown): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((k) => `${[...issue.path, k].join('.')}: is not an allowed field`).join('; ');
      }
      return `${field}: ${rule(issue, input)}`;
    })
    .join('; ');
}
