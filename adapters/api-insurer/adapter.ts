import { signWebhook } from '../../domain/webhooks/signature.js';
import type { InsurerSubmission } from '../../domain/insurer-exchange/submission.js';
import type { InsurerAdapter } from '../types.js';
import { failureFor, failureForError, unavailable } from './outcome.js';
import { apiRequest, renewalRequest, type ApiCallKind, type ApiRequest } from './request.js';
import type { RenewalSubmission } from '../../domain/policy-year/renewal-submission.js';

/** Signed like our webhooks: `Signature: t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'Signature';
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Signing secrets shorter than this are refused, as a webhook secret would be. */
const MIN_SECRET_BYTES = 32;
/** An answer's body is read up to this size (for the insurer's detail); the rest is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface ApiAdapterOptions {
  /** The value of the environment variable an insurer's `signing_secret_env` names. */
  secret(name: string): string | undefined;
  /** Unix milliseconds, for the signature's timestamp. */
  now?: () => number;
}

export async function readBounded(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < MAX_ANSWER_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

/**
 * The `api` adapter (D14): each submission and withdrawal is one signed JSON POST to the insurer's
 * configured URL, within the insurer's timeout. Idempotent by endorsement id (the Idempotency-Key a
 * retry repeats). Accepted means a 2xx answer; failures are classified in outcome.ts and the
 * activity's retry policy does the back-off. The body, with its personal data, goes only to the
 * insurer: nothing here logs, and failure messages carry ids and the insurer's detail only.
 */
export function createApiAdapter(opts: ApiAdapterOptions): InsurerAdapter {
  const now = opts.now ?? Date.now;

  async function call(s: InsurerSubmission, kind: ApiCallKind): Promise<void> {
    if (s.adapter !== 'api') throw new Error(`insurer ${s.insurerCode} does not use the api adapter`);
    await send(
      s,
      `${kind} of ${s.endorsementId} to insurer ${s.insurerCode}`,
      apiRequest(s, s.adapterSettings, kind),
    );
  }

  async function send(
    s: { insurerCode: string } & (InsurerSubmission | RenewalSubmission),
    what: string,
    request: ApiRequest,
  ): Promise<void> {
    if (s.adapter !== 'api') throw new Error(`insurer ${s.insurerCode} does not use the api adapter`);
    const settings = s.adapterSettings;
    const secret = opts.secret(settings.signing_secret_env);
    if (!secret || Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
      // Retried: the endorsement waits (and turns stuck on time) until the worker has the secret.
      throw unavailable(
        `${what}: ${settings.signing_secret_env} is not set to a signing secret of at least ${MIN_SECRET_BYTES} bytes in the worker's environment`,
        undefined,
        `set ${settings.signing_secret_env} in the worker's environment to the signing secret agreed with insurer ${s.insurerCode} (at least ${MIN_SECRET_BYTES} bytes) and restart the worker; the submission is retried by itself`,
      );
    }
    let res: Response;
    try {
      res = await fetch(request.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          [IDEMPOTENCY_HEADER]: request.idempotencyKey,
          [SIGNATURE_HEADER]: signWebhook(secret, request.body, Math.floor(now() / 1000)),
        },
        body: request.body,
        // Never follow a redirect: the body would go to an address the settings do not name.
        redirect: 'manual',
        signal: AbortSignal.timeout(settings.timeout_ms),
      });
    } catch (err) {
      failureForError(what, err, settings.timeout_ms);
    }
    const text = await readBounded(res).catch(() => '');
    if (res.status >= 200 && res.status < 300) return;
    failureFor(what, res.status, text, res.headers.get('retry-after'));
  }

  return {
    submit: (s) => call(s, 'submission'),
    withdraw: (s) => call(s, 'withdrawal'),
    submitRenewal: async (r) => {
      if (r.adapter !== 'api') throw new Error(`insurer ${r.insurerCode} does not use the api adapter`);
      await send(
        r,
        `renewal ${r.renewalId} to insurer ${r.insurerCode}`,
        renewalRequest(r, r.adapterSettings),
      );
    },
  };
}
