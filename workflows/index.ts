/** Every workflow the worker registers; the worker bundles this file. */
export { smokeWorkflow } from './smoke/workflow.js';
export { endorsementWorkflow } from './endorsement/workflow.js';
export { simulatedInsurerWorkflow } from './endorsement/simulated-insurer.js';
export { grantWorkflow } from './grant/workflow.js';
export { insurerCutOffWorkflow } from './insurer-cut-off/workflow.js';
export { webhookDeliveryWorkflow } from './webhook/workflow.js';
export {
  endorsementReconcilePassWorkflow,
  grantReconcilePassWorkflow,
  memberCoverEndPassWorkflow,
  cdBalanceCheckPassWorkflow,
  dependentAgeOutPassWorkflow,
  renewalPassWorkflow,
  webhookSweepPassWorkflow,
} from './periodic/workflow.js';
export { insurerInboxPassWorkflow } from './insurer-inbox/workflow.js';
export { rosterReconciliationWorkflow } from './roster-reconciliation/workflow.js';
export { censusBatchWorkflow } from './census-batch/workflow.js';
export { renewalWorkflow } from './renewal/workflow.js';
