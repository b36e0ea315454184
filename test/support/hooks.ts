import { demandedStack, type StackLifecycle } from './stack-demand.js';

let started: StackLifecycle | null = null;

/**
 * Root hooks: one stack for the whole run, shared by every test file, started only when a loaded file
 * needs it (stack-demand.ts). Mocha loads every test file before these hooks run.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    const lifecycle = demandedStack();
    if (!lifecycle) return;
    this.timeout(240_000);
    started = lifecycle;
    await lifecycle.start();
  },
  async afterAll(this: Mocha.Context) {
    if (!started) return;
    this.timeout(60_000);
    await started.stop();
  },
};
