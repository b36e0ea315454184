import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { runWorkerProcess } from '../../worker/process.js';

/**
 * The production worker process with one fault: it exits (code 86) right after the activity named
 * by TEST_EXIT_AFTER_COMMIT returns, that is after its transaction committed and before the
 * worker reports the result to Temporal. For the crash tests only.
 */
const exitAfter = process.env.TEST_EXIT_AFTER_COMMIT;

const exitAfterCommit: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const result = await next(input);
      if (ctx.info.activityType === exitAfter) process.exit(86);
      return result;
    },
  },
});

await runWorkerProcess({ activityInterceptors: exitAfter ? [exitAfterCommit] : [] });
