/**
 * The shared stack of this run, if any test file needs one. test/support/stack.ts registers itself
 * here when it is loaded, so a file that imports it (directly or through factories, http, ...) gets a
 * stack, and a run of pure unit tests, which import none, starts neither PostgreSQL nor Temporal.
 * The registration carries the functions themselves: the root hooks call the very module instance
 * the test files use.
 */
export interface StackLifecycle {
  start(): Promise<unknown>;
  stop(): Promise<void>;
}

let demanded: StackLifecycle | null = null;

export const demandStack = (lifecycle: StackLifecycle): void => {
  demanded = lifecycle;
};

export const demandedStack = (): StackLifecycle | null => demanded;
