/**
 * The figures a fault or abuse test saw, printed under the test's name in the mocha output, so a
 * run documents what was injected and what happened (docs/architecture.md's Reliability table quotes them).
 */
export function report(test: string, figures: Record<string, unknown>): void {
  console.log(`      [figures] ${test}: ${JSON.stringify(figures)}`);
}

/** p50/p99/max of a list of latencies in ms. */
export function percentiles(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: Math.round(at(0.5)), p99: Math.round(at(0.99)), max: Math.round(sorted.at(-1) ?? 0) };
}
