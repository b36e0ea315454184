import type { SystemScope } from './scope.js';

/** One trivial statement: the database answers (readiness, no tenant involved). */
export async function pingDatabase(system: SystemScope): Promise<void> {
  await system.sql('select 1');
}
