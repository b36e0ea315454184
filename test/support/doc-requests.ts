import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The requests the README and docs show, read from their ```sh blocks that call curl, each with the
 * ```json answer shown right after it (if any). The docs test runs them against a test API, so a
 * request or an answer that rots fails CI.
 */
export interface DocBlock {
  file: string;
  /** 1-based line of the block's opening fence. */
  line: number;
  script: string;
  /** The answer the doc shows for the block's last request, parsed. */
  shownAnswer: unknown;
  /** The heading the block is under (without its `#`s), '' before the first. */
  section: string;
}

/**
 * The README's walkthrough that needs a running `npm start` (its operator commands find that stack,
 * its insurers are the sandboxes npm start runs): test/infra/start.test.ts runs every ```sh block of
 * it, curl or not, against a real `npm start`; the docs test leaves the section to it.
 */
export const NPM_START_SECTION = 'The demo: a grant over every policy';

/** Assignments a reader fills from `npm start`'s output; the test sets them itself. */
export const READER_VARIABLES = ['BASE', 'CLIENT_ID', 'CLIENT_SECRET'] as const;

/** README.md and every Markdown file under docs/, but the copied contract (docs/spec). */
export function docFiles(root: string): string[] {
  const files = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (rel !== path.join('docs', 'spec')) walk(rel);
      } else if (entry.name.endsWith('.md')) files.push(rel);
    }
  };
  walk('docs');
  return files.sort((a, b) => (a === 'README.md' ? -1 : b === 'README.md' ? 1 : a.localeCompare(b)));
}

export function requestBlocks(file: string, text: string): DocBlock[] {
  return shellBlocks(file, text).filter((b) => /(^|[\s($])curl\s/m.test(b.script));
}

/** Every ```sh (or bash) block of the file, with its section and the answer shown after it. */
export function shellBlocks(file: string, text: string): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  let i = 0;
  let section = '';
  const fenceEnd = (from: number) => {
    let j = from + 1;
    while (j < lines.length && !lines[j]!.startsWith('```')) j++;
    return j;
  };
  while (i < lines.length) {
    const fence = lines[i]!.match(/^```(\w*)/);
    if (!fence) {
      const heading = lines[i]!.match(/^#+\s+(.*)$/);
      if (heading) section = heading[1]!.trim();
      i++;
      continue;
    }
    const end = fenceEnd(i);
    const body = lines.slice(i + 1, end).join('\n');
    if (fence[1] === 'sh' || fence[1] === 'bash') {
      let next = end + 1;
      while (next < lines.length && lines[next]!.trim() === '') next++;
      let shownAnswer: unknown;
      if (lines[next]?.startsWith('```json')) {
        const answerEnd = fenceEnd(next);
        const json = lines.slice(next + 1, answerEnd).join('\n');
        try {
          shownAnswer = JSON.parse(json);
        } catch (err) {
          throw new Error(`${file}:${next + 1}: the answer shown is not JSON (${(err as Error).message})`);
        }
      }
      blocks.push({ file, line: i + 1, script: body, shownAnswer, section });
    }
    i = end + 1;
  }
  return blocks;
}

/** The block as the test runs it: the reader's own assignments left out (the test provides them). */
export function runnableScript(block: DocBlock): string {
  const reader = new RegExp(`^(export\\s+)?(${READER_VARIABLES.join('|')})=`);
  return block.script
    .split('\n')
    .filter((l) => !reader.test(l))
    .join('\n');
}

/**
 * Whether an answer has what the doc shows: every key shown is there with a value of the same kind,
 * booleans and null equal, arrays compared by their first element. Ids, dates and amounts differ per
 * run, so strings and numbers are compared by kind; a value written as a `…` placeholder too.
 * Answers the path of the first difference, or null.
 */
export function differsFromShown(shown: unknown, actual: unknown, at = '$'): string | null {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(shown) !== kind(actual)) return `${at}: shown ${kind(shown)}, answered ${kind(actual)}`;
  if (typeof shown === 'boolean' && shown !== actual)
    return `${at}: shown ${shown}, answered ${String(actual)}`;
  if (Array.isArray(shown) && Array.isArray(actual)) {
    if (shown.length === 0 || actual.length === 0) return null;
    return differsFromShown(shown[0], actual[0], `${at}[0]`);
  }
  if (kind(shown) === 'object') {
    const a = actual as Record<string, unknown>;
    for (const [key, value] of Object.entries(shown as Record<string, unknown>)) {
      if (!(key in a)) return `${at}.${key}: shown, not answered`;
      const d = differsFromShown(value, a[key], `${at}.${key}`);
      if (d) return d;
    }
  }
  return null;
}

/**
 * Bash run before the blocks: `curl` records each answer (block, status, body as base64) in
 * $DOC_LOG and fails the script on any answer outside 2xx, naming it.
 */
export const CURL_RECORDER = [
  'set -euo pipefail',
  'curl() {',
  '  local out status body',
  '  out=$(command curl -sS -w \'\\n%{http_code}\' "$@") || return $?',
  "  status=${out##*$'\\n'}",
  "  body=${out%$'\\n'*}",
  '  printf \'%s %s %s\\n\' "$DOC_BLOCK" "$status" "$(printf \'%s\' "$body" | base64 -w0)" >> "$DOC_LOG"',
  '  printf \'%s\' "$body"',
  '  if [[ $status != 2* ]]; then',
  '    printf \'HTTP %s from curl %s: %s\\n\' "$status" "$*" "$body" >&2',
  '    return 22',
  '  fi',
  '}',
].join('\n');
