/**
 * Usage lines show optional arguments in brackets (`[--scopes S]`). Typed with the brackets, the shell
 * passes `[--scopes` and `S]` as words that no option matches, so a command would run without them
 * and say nothing. Every command refuses them first, naming what to type instead.
 */
export function bracketedArgumentsMessage(argv: readonly string[]): string | null {
  const start = argv.findIndex((a) => a === '[' || a.startsWith('[-'));
  if (start === -1) return null;
  let end = argv.findIndex((a, i) => i >= start && a.endsWith(']'));
  if (end === -1) end = start;
  const typed = argv.slice(start, end + 1).join(' ');
  const meant = typed.replace(/^\[\s*/, '').replace(/\s*\]$/, '');
  return `optional arguments go without their brackets: type ${meant ? `\`${meant}\`` : 'the option'}, not \`${typed}\``;
}

/** Stops the command (exit 2, one line) when it was typed with a usage line's brackets. */
export function refuseBracketedArguments(argv: readonly string[]): void {
  const message = bracketedArgumentsMessage(argv);
  if (!message) return;
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
