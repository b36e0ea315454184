/** A trivial workflow that proves a real worker runs workflows and activities end to end. */
export const SMOKE_WORKFLOW = 'smokeWorkflow';
export const smokeWorkflowId = (runId: string): string => `smoke-${runId}`;
export interface SmokeInput {
  name: string;
}
