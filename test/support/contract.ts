import { checkAnswer, type ContractProblem } from '../../api/openapi/contract.js';
import type { ResponseObserver } from '../../api/deps.js';
import { allRoutes } from '../../api/routes/index.js';

/**
 * Every answer a test gets from a service route is checked against that route's documented contract
 * (the source of the OpenAPI document): a success body against its schema, an error against the
 * statuses, types and titles documented for the route. The root afterAll hook fails the run on any
 * mismatch, so the reference stays true to what every test has seen. Routes that tests mount for
 * themselves (not among allRoutes()) are not checked, nor routes that declare no response schema
 * yet (test/api/openapi.test.ts names those).
 */
const serviceRoutes = new Map(allRoutes().map((r) => [`${r.method} ${r.path}`, r]));
const problems = new Map<string, ContractProblem & { count: number }>();

export const recordAnswer: ResponseObserver = (observed, status, body, headers) => {
  const route = serviceRoutes.get(`${observed.method} ${observed.path}`);
  if (!route?.response) return;
  const problem = checkAnswer(route, status, body, headers);
  if (!problem) return;
  const key = `${problem.route} ${problem.status} ${problem.problem}`;
  const seen = problems.get(key);
  if (seen) seen.count++;
  else problems.set(key, { ...problem, count: 1 });
};

/** Throws a readable list of answers that the API reference does not describe. */
export function assertAnswersMatchContract(): void {
  if (problems.size === 0) return;
  const lines = [...problems.values()].map(
    (p) => `  ${p.route} -> ${p.status}: ${p.problem}${p.count > 1 ? ` (${p.count}x)` : ''}`,
  );
  problems.clear();
  throw new Error(
    `Answers that the OpenAPI document does not describe (add the error to the route's \`errors\`, ` +
      `or fix the response schema):\n${lines.join('\n')}`,
  );
}
