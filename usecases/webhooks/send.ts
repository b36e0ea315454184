import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { checkBeforeConnect, WebhookUrlRefused, type UrlPolicy } from '../../domain/webhooks/url.js';
import { guardedLookup } from './address.js';

/** What one POST came to: the response code (null when none arrived), latency, and why it failed. */
export interface PostResult {
  statusCode: number | null;
  latencyMs: number;
  /** A short technical reason (never a response body); null on a 2xx. */
  error: string | null;
}

export interface SignedPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: UrlPolicy;
  timeoutMs: number;
  /** Aborts the attempt early (the activity's cancellation, e.g. a worker shutting down). */
  signal?: AbortSignal;
}

/**
 * One POST, judged by its status line: 2xx is delivered, anything else (redirects included: they
 * are not followed) is a failed attempt. The response body is never read or kept. A fresh
 * connection per attempt, opened through the guarded lookup, so the address policy holds for the
 * socket actually used.
 */
export async function postSigned(req: SignedPost): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = checkBeforeConnect(req.url, req.policy);
  } catch (err) {
    return { statusCode: null, latencyMs: 0, error: `refused: ${(err as Error).message}` };
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    const request = transport.request(url, {
      method: 'POST',
      agent: false,
      lookup: guardedLookup(req.policy),
      signal: AbortSignal.any([AbortSignal.timeout(req.timeoutMs), ...(req.signal ? [req.signal] : [])]),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(req.body),
        'user-agent': 'group-health-webhooks/1',
        ...req.headers,
      },
    });
    request.once('response', (res) => {
      const statusCode = res.statusCode ?? 0;
      res.destroy();
      const ok = statusCode >= 200 && statusCode < 300;
      resolve({ statusCode, latencyMs: elapsed(), error: ok ? null : `HTTP ${statusCode}` });
    });
    request.on('error', (err: NodeJS.ErrnoException) => {
      resolve({ statusCode: null, latencyMs: elapsed(), error: describeError(err, req.timeoutMs) });
    });
    request.end(req.body);
  });
}

function describeError(err: NodeJS.ErrnoException, timeoutMs: number): string {
  if (err instanceof WebhookUrlRefused) return `refused: ${err.message}`;
  if (err.name === 'TimeoutError' || (err.cause as Error | undefined)?.name === 'TimeoutError') {
    return `timeout after ${timeoutMs} ms`;
  }
  if (err.name === 'AbortError') return 'aborted';
  return (err.code ?? err.message).slice(0, 200);
}
