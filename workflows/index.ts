/** Every workflow the worker registers; the worker bundles this file. */
export { smokeWorkflow } from './smoke/workflow.js';
