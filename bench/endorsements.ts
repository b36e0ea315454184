import type { Load, Row } from './run.js';
import type { BenchStack } from './stack.js';

/** 6 and 7: endorsement create and end-to-end throughput (filled in with the endorsement workflow). */
export async function endorsementScenarios(_s: BenchStack, _load: Load, _plan: { rounds: number; endorsements: number }): Promise<Row[]> {
  return [];
}
