import { createActivities } from '../../activities/index.js';
import { systemClock } from '../../domain/clock.js';
import { createLogger } from '../../infra/logger.js';
import { stack } from './stack.js';

/**
 * The service's activities on this run's stack, called directly: a step re-run as a replay runs it,
 * or a race set up that a workflow must survive.
 */
export const stackActivities = () =>
  createActivities({
    config: stack().config,
    orm: stack().orm,
    clock: systemClock,
    logger: createLogger('silent'),
    temporal: stack().temporal,
    adapters: stack().adapters,
  });
