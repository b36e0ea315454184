/** How a command that answers a file's outcome ends: its errors, by kind. */
export interface CommandErrors {
  /** Errors whose message is the whole story (no "failed:" prefix). */
  known: (err: unknown) => boolean;
  /** A wrong invocation: exit code 2. */
  usage: (err: unknown) => boolean;
}

/**
 * Prints a command's answer as JSON (`--json`) or lines; a file refused whole exits 1, a wrong
 * invocation 2, any other failure 1 with `failed:` in front.
 */
export function printCommandResult<R extends { status: string }>(
  work: Promise<R>,
  json: boolean,
  lines: (result: R) => string,
  errors: CommandErrors,
): void {
  work.then(
    (result) => {
      process.stdout.write(`${json ? JSON.stringify(result) : lines(result)}\n`);
      if (result.status === 'refused') process.exitCode = 1;
    },
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`${errors.known(err) ? message : `failed: ${message}`}\n`);
      process.exitCode = errors.usage(err) ? 2 : 1;
    },
  );
}
