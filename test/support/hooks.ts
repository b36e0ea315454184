import { assertAnswersMatchContract } from './contract.js';
import { startStack, stopStack } from './stack.js';

/** Root hooks: one stack for the whole run, shared by every test file. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(240_000);
    await startStack();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopStack();
    assertAnswersMatchContract();
  },
};
