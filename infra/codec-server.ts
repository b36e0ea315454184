import { createHash, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { codecServerOrigins, codecServerToken, payloadEncryptionKeys, type Config } from '../config/index.js';
import { AesGcmPayloadCodec } from './payload-codec.js';

/** Payloads as the codec server protocol carries them: proto3 JSON, bytes in base64. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Bearer token: `Authorization: Bearer <token>`, or the first path segment for the Web UI. */
  token: string;
  /** Browser origins (the Web UI's) answered with CORS headers; every other origin is refused. */
  allowedOrigins: string[];
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const digest = (value: string) => createHash('sha256').update(value).digest();
const sameSecret = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
  ),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

/**
 * Temporal's remote codec protocol (`POST /encode`, `POST /decode`) so the Web UI and the CLI show
 * decoded payloads. It hands out plaintext, so it listens on loopback by default, asks for a bearer
 * token on every call and answers CORS only for the configured UI origins. The Web UI cannot add a
 * header of its own, so its codec endpoint carries the token as the first path segment
 * (`http://host:port/<token>`); the CLI sends it as `--codec-auth "Bearer <token>"`.
 */
export function createCodecServer(options: CodecServerOptions): Server {
  return http.createServer((req, res) => {
    handle(options, req, res).catch((err: unknown) => {
      send(res, 400, { error: err instanceof Error ? err.message : 'cannot process payloads' });
    });
  });
}

async function handle(o: CodecServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!o.allowedOrigins.includes(origin)) return send(res, 403, { error: 'origin not allowed' });
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'origin');
  }
  if (req.method === 'OPTIONS') {
    if (origin === undefined) return send(res, 403, { error: 'origin not allowed' });
    res.writeHead(204, {
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type, x-namespace, authorization',
      'access-control-max-age': '600',
    });
    return void res.end();
  }
  const segments = (req.url ?? '/').split('?')[0]!.split('/').filter(Boolean);
  const action = segments.at(-1);
  const pathToken = segments.length === 2 ? segments[0]! : null;
  const headerToken = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
  if (segments.length > 2 || (action !== 'encode' && action !== 'decode')) {
    return send(res, 404, { error: 'not found' });
  }
  if (!sameSecret(pathToken ?? headerToken ?? '', o.token)) {
    res.setHeader('www-authenticate', 'Bearer');
    return send(res, 401, { error: 'unauthorized' });
  }
  if (req.method !== 'POST') return send(res, 405, { error: 'method not allowed' });
  const body = JSON.parse(await readBody(req)) as { payloads?: JsonPayload[] };
  const payloads = (body.payloads ?? []).map(fromJson);
  const out = action === 'encode' ? await o.codec.encode(payloads) : await o.codec.decode(payloads);
  send(res, 200, { payloads: out.map(toJson) });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('payloads too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Listens where configured; resolves once bound. */
export function listenCodecServer(server: Server, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** The codec server of this configuration: the service's payload keys, its token, its UI origins. */
export function configuredCodecServer(config: Config): Server {
  return createCodecServer({
    codec: new AesGcmPayloadCodec(payloadEncryptionKeys(config)),
    token: codecServerToken(config),
    allowedOrigins: codecServerOrigins(config),
  });
}

/** The endpoint a local Web UI is given (token in the path: the UI cannot send a header of its own). */
export function uiCodecEndpoint(config: Config): string {
  const host = ['0.0.0.0', '::'].includes(config.CODEC_SERVER_HOST) ? '127.0.0.1' : config.CODEC_SERVER_HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.CODEC_SERVER_PORT}/${codecServerToken(config)}`;
}
