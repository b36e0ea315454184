import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ApiAdapterSettings } from '../../domain/insurer-exchange/adapter-settings.js';
import { signWebhook } from '../../domain/webhooks/signature.js';
import { IDEMPOTENCY_HEADER, readBounded, SIGNATURE_HEADER } from './adapter.js';
import { failureFor, failureForError, unavailable } from './outcome.js';

/** A roster of tens of thousands of members takes a while to send: the whole answer's limit. */
export const ROSTER_TIMEOUT_MS = 10 * 60_000;

/**
 * Asks an `api` insurer for its roster of one policy: a signed JSON `POST <base_url>/roster`
 * (`{"policy_number": …}`, signed like a submission), answered with the roster as CSV in the
 * insurer's roster template. The body is handed back as a stream, parsed as it arrives (never held
 * whole). Failures are classified like a submission's (outcome.ts): 408, 429, 5xx and no answer are
 * retried, any other 4xx is final.
 */
export async function fetchInsurerRoster(
  q: { insurerCode: string; policyNumber: string; settings: ApiAdapterSettings; secret: string | undefined },
  now: () => number = Date.now,
): Promise<Readable> {
  const what = `roster of policy ${q.policyNumber} from insurer ${q.insurerCode}`;
  if (!q.secret)
    throw unavailable(`${what}: ${q.settings.signing_secret_env} is not set in the worker's environment`);
  const body = JSON.stringify({ policy_number: q.policyNumber });
  let res: Response;
  try {
    res = await fetch(`${q.settings.base_url}/roster`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'text/csv',
        [IDEMPOTENCY_HEADER]: `roster:${q.policyNumber}`,
        [SIGNATURE_HEADER]: signWebhook(q.secret, body, Math.floor(now() / 1000)),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(ROSTER_TIMEOUT_MS),
    });
  } catch (err) {
    failureForError(what, err, ROSTER_TIMEOUT_MS);
  }
  if (res.status < 200 || res.status >= 300 || !res.body) {
    failureFor(what, res.status, await readBounded(res).catch(() => ''), res.headers.get('retry-after'));
  }
  return Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
}
