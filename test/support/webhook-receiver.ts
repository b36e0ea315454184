import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../domain/webhooks/signature.js';

/** One POST as the receiver saw it. */
export interface Received {
  id: string;
  signature: string;
  body: string;
  event: { id: string; type: string; created_at: string; data: Record<string, unknown> };
  /** The signature check a receiver makes, at arrival. */
  verified: boolean;
}

/** How to answer: a status code, or 'hang' (answer 30 s later, or never if closed before). */
export type Answer = number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests still waiting for their answer. */
  open(): number;
  /** Distinct events by id (what a receiver keeps after dedupe). */
  events(): Received['event'][];
  /** The signing secret to check with (set once the endpoint is registered). */
  secret: string;
  close(): Promise<void>;
}

/**
 * A webhook receiver on loopback, as an integrator would write one: reads the raw body, checks the
 * signature and its age, answers as `answer` says for this request (n counts the requests for the
 * same event id, from 1).
 */
export async function startReceiver(answer: (event: Received, n: number) => Answer = () => 200) {
  const received: Received[] = [];
  let open = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = String(req.headers['webhook-signature'] ?? '');
      const entry: Received = {
        id: String(req.headers['webhook-id'] ?? ''),
        signature,
        body,
        event: JSON.parse(body) as Received['event'],
        verified: verifyWebhook(receiver.secret, body, signature, Math.floor(Date.now() / 1000)).ok,
      };
      received.push(entry);
      const n = received.filter((r) => r.id === entry.id).length;
      const what = answer(entry, n);
      if (what === 'hang') {
        open++;
        const timer = setTimeout(() => res.writeHead(200).end(), 30_000);
        res.on('close', () => {
          open--;
          clearTimeout(timer);
        });
        return;
      }
      res.writeHead(what, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    secret: '',
    open: () => open,
    events: () => [...new Map(received.map((r) => [r.id, r.event])).values()],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return receiver;
}
