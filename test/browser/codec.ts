import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { createCodecServer, listenCodecServer } from '../../infra/codec-server.js';
import { AesGcmPayloadCodec } from '../../infra/payload-codec.js';
import { stack } from '../support/stack.js';

/**
 * This run's codec server on a free loopback port, answering a Web UI (the dev server's unless another
 * UI's origin is given); `endpoint` has its token.
 */
export async function startCodecServer(
  uiOrigin = stack().temporalUiUrl,
): Promise<{ server: Server; endpoint: string }> {
  if (!uiOrigin) throw new Error('the browser test needs the stack to run its own Temporal dev server');
  const token = randomBytes(24).toString('base64url');
  const server = await listenCodecServer(
    createCodecServer({
      codec: new AesGcmPayloadCodec(stack().config.PAYLOAD_ENCRYPTION_KEYS!),
      token,
      allowedOrigins: [uiOrigin],
    }),
    0,
    '127.0.0.1',
  );
  return { server, endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}/${token}` };
}

/**
 * Makes the Web UI use this codec endpoint (as `--ui-codec-endpoint` does for `npm start`): its
 * settings answer is given the endpoint. Returns the function that undoes it.
 */
export async function useCodecEndpoint(page: Page, endpoint: string): Promise<() => Promise<void>> {
  await page.route('**/api/v1/settings**', async (route) => {
    const settings = (await (await route.fetch()).json()) as Record<string, any>;
    settings.Codec = { ...settings.Codec, Endpoint: endpoint };
    await route.fulfill({ json: settings });
  });
  return () => page.unroute('**/api/v1/settings**');
}

/** The page's text and its frames' (the Web UI renders user metadata's Markdown in frames). */
async function allText(page: Page): Promise<string> {
  const texts = await Promise.all(page.frames().map((f) => f.innerText('body').catch(() => '')));
  return texts.join('\n');
}

/** Polls the page's text until it holds every one of `shown` (bounded); returns the last text. */
export async function textShowing(page: Page, shown: string[], timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = await allText(page);
  while (!shown.every((s) => text.includes(s)) && Date.now() < deadline) {
    await page.waitForTimeout(250);
    text = await allText(page);
  }
  return text;
}
