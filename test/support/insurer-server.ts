import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../domain/webhooks/signature.js';

/** One call as the insurer saw it. */
export interface InsurerCall {
  method: string;
  path: string;
  idempotencyKey: string;
  contentType: string;
  signature: string;
  raw: string;
  body: any;
  /** The insurer's check of the signature and its age, at arrival. */
  verified: boolean;
}

/** How to answer a call: a status with a JSON body, or 'hang' (answer only when the server closes). */
export type InsurerAnswer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang';

export interface InsurerServer {
  /** The base URL to put in the insurer's `base_url`. */
  url: string;
  calls: InsurerCall[];
  close(): Promise<void>;
}

/**
 * An insurer's API on loopback, as an insurer would run one: reads the raw body, checks the
 * signature with the shared secret (a bad one is answered 401), then answers as `answer` says
 * (n counts the calls with the same Idempotency-Key, from 1). By default it accepts with 202.
 */
export async function startInsurerServer(
  secret: string,
  answer: (call: InsurerCall, n: number) => InsurerAnswer = () => ({ status: 202, body: { received: true } }),
): Promise<InsurerServer> {
  const calls: InsurerCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const signature = String(req.headers.signature ?? '');
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        // recorded as null: the test sees it
      }
      const call: InsurerCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        idempotencyKey: String(req.headers['idempotency-key'] ?? ''),
        contentType: String(req.headers['content-type'] ?? ''),
        signature,
        raw,
        body,
        verified: verifyWebhook(secret, raw, signature, Math.floor(Date.now() / 1000)).ok,
      };
      calls.push(call);
      if (!call.verified) {
        res
          .writeHead(401, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ detail: 'bad signature' }));
        return;
      }
      const what = answer(call, calls.filter((c) => c.idempotencyKey === call.idempotencyKey).length);
      if (what === 'hang') return;
      res
        .writeHead(what.status, { 'Content-Type': 'application/json', ...what.headers })
        .end(what.body === undefined ? '' : JSON.stringify(what.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/insurer-api`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
