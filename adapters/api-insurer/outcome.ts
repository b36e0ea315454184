import { ApplicationFailure } from '@temporalio/common';
import { INSURER_REFUSED, INSURER_UNAVAILABLE } from '../../domain/insurer-exchange/submission.js';

/**
 * How an insurer's answer is classified. 2xx: accepted. 408 and 429: busy, retried (a Retry-After
 * of up to 10 minutes sets the next attempt's delay). Any other 4xx: refused, not retried, with the
 * insurer's detail. 5xx, redirects, timeouts and connection failures: retried by the activity's
 * policy. Messages name the insurer and the endorsement id, never the request's personal data.
 */
const MAX_DETAIL = 500;
const MAX_RETRY_AFTER_S = 600;

export const refused = (message: string) =>
  ApplicationFailure.create({ type: INSURER_REFUSED, message, nonRetryable: true });

/** `fix`: what an operator does about it, shown in the endorsement's details (activities/submission-failure.ts). */
export const unavailable = (message: string, nextRetryDelayS?: number, fix?: string) =>
  ApplicationFailure.create({
    type: INSURER_UNAVAILABLE,
    message,
    nonRetryable: false,
    ...(nextRetryDelayS === undefined ? {} : { nextRetryDelay: `${nextRetryDelayS} seconds` }),
    ...(fix ? { details: [{ fix }] } : {}),
  });

/** The insurer's own words: a JSON `detail`/`message`/`error` string, or the text, on one bounded line. */
export function insurerDetail(text: string): string {
  let detail = text;
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const named = [json.detail, json.message, json.error].find((v) => typeof v === 'string');
    if (typeof named === 'string') detail = named;
  } catch {
    // not JSON: the text as it is
  }
  const line = detail.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}…` : line || '(no detail)';
}

function retryAfterSeconds(header: string | null): number | undefined {
  if (!header || !/^\d+$/.test(header.trim())) return undefined;
  return Math.min(Number(header.trim()), MAX_RETRY_AFTER_S);
}

/** Throws the classified failure for a non-2xx answer. */
export function failureFor(what: string, status: number, text: string, retryAfter: string | null): never {
  if (status === 408 || status === 429) {
    throw unavailable(`${what}: insurer busy (HTTP ${status})`, retryAfterSeconds(retryAfter));
  }
  if (status >= 400 && status < 500) {
    throw refused(`${what}: insurer refused (HTTP ${status}): ${insurerDetail(text)}`);
  }
  throw unavailable(`${what}: insurer answered HTTP ${status}`, retryAfterSeconds(retryAfter));
}

/** A call that got no answer: timed out, refused, reset. */
export function failureForError(what: string, err: unknown, timeoutMs: number): never {
  const e = err as { name?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError') throw unavailable(`${what}: insurer did not answer within ${timeoutMs} ms`);
  const code = e.cause?.code ?? e.name ?? 'error';
  throw unavailable(`${what}: insurer unreachable (${code})`);
}
