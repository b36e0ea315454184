import type { InsurerAdapter } from './types.js';

/**
 * The `manual` adapter (D8): the insurer is handled outside the service (email, portal), so there
 * is nothing to send; an operator records the decision with `npm run insurer -- approve|reject`.
 */
export const manualAdapter: InsurerAdapter = {
  async submit() {},
  async withdraw() {},
  /** The renewal is recorded as sent; the insurer hears of it the way it hears of everything else. */
  async submitRenewal() {},
};
