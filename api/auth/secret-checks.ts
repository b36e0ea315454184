import { verifySecret } from '../../domain/credentials.js';

/**
 * Secret checks running at once in one API process. Each is a 16 MiB scrypt taking ~50 ms of a core
 * on libuv's pool; unbounded, a burst of token requests would take every pool thread (and the memory)
 * from everything else. Past the bound, checks wait their turn in arrival order.
 */
export const SECRET_CHECK_CONCURRENCY = 2;

export interface SecretChecks {
  check(secret: string, storedHash: string): Promise<boolean>;
  /** Checks run so far (a test reads it to prove that limited requests never hash). */
  readonly run: number;
}

export function createSecretChecks(concurrency = SECRET_CHECK_CONCURRENCY): SecretChecks {
  let active = 0;
  let run = 0;
  const waiting: (() => void)[] = [];
  return {
    get run() {
      return run;
    },
    async check(secret, storedHash) {
      if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
      run++;
      try {
        return await verifySecret(secret, storedHash);
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
  };
}
