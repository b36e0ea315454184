/** Every workflow the worker registers; the worker bundles this file. */
export { smokeWorkflow } from './smoke/workflow.js';
export { endorsementWorkflow } from './endorsement/workflow.js';
export { endorsementReconcilerWorkflow } from './endorsement/reconciler.js';
export { simulatedInsurerWorkflow } from './endorsement/simulated-insurer.js';
export { grantWorkflow } from './grant/workflow.js';
export { grantReconcilerWorkflow } from './grant/reconciler.js';
export { webhookDeliveryWorkflow } from './webhook/workflow.js';
export { webhookSweeperWorkflow } from './webhook/sweeper.js';
