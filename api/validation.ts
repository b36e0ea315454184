import type { z } from 'zod';
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

/** The one place request input is checked; `make` lets a route choose another error than VALIDATION_ERROR. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  make: (detail: string, issues: readonly z.core.$ZodIssue[]) => ApiError = (d) => validationError(d),
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw make(describeIssues(result.error.issues), result.error.issues);
  return result.data;
}
