import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { safeError } from '../db/errors.js';

/**
 * Every activity's failure passes through here before the SDK logs it and records it in the
 * workflow's history (as the failure, or as the last failure of a retried attempt): a database
 * error leaves without the statement text and its values (db/errors.ts). The error's name is
 * kept, so retry decisions do not change.
 */
export const safeActivityErrors: ActivityInterceptorsFactory = () => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (err) {
        throw safeError(err);
      }
    },
  },
});
