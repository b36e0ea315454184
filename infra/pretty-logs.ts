import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { prettyFactory } from 'pino-pretty';

/**
 * `npm start` runs several processes in one terminal: their JSON log lines are shown readable, each line
 * behind its process's name. Lines that are not JSON (a crash, a config error) pass through with the prefix.
 * `npm run api` / `npm run worker` print plain JSON, for a log collector.
 */
export function prettyLines(name: string, width: number, colorize = false): (line: string) => string {
  const prettify = prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  const prefix = `${name.padEnd(width)} | `;
  return (line) => {
    let text = line;
    if (line.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(line);
        if (parsed && typeof parsed === 'object' && 'level' in parsed) text = prettify(parsed).trimEnd();
      } catch {
        // not a log line: shown as it came
      }
    }
    return text
      .split('\n')
      .map((part) => prefix + part)
      .join('\n');
  };
}

/** Copies a child's output to ours, line by line, through prettyLines. */
export function pipePretty(name: string, width: number, from: Readable | null, to: NodeJS.WriteStream): void {
  if (!from) return;
  const format = prettyLines(name, width, to.isTTY === true);
  readline.createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => {
    to.write(`${format(line)}\n`);
  });
}
