import { runWorkerProcess } from './process.js';

/** Production entry point of the Temporal worker; scale by running more copies. */
await runWorkerProcess();
