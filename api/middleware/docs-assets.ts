import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Koa from 'koa';

export const DOCS_ASSETS_PREFIX = '/docs/assets/';

/** Starts Swagger UI on the page of GET /docs; a file, not inline, so the page's CSP can forbid inline script. */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
});
`;

/** The viewer's files served from node_modules (the machine may have no internet: no CDN). */
const FILES: Record<string, { file?: string; text?: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png' },
  'init.js': { text: INIT_SCRIPT, type: 'text/javascript; charset=utf-8' },
};

const distDir = () => path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * GET /docs/assets/<name> for the names above only (no path from the request reaches the file
 * system). Read once per app, then served from memory.
 */
export function docsAssets(): Koa.Middleware {
  const loaded = new Map<string, Promise<Buffer>>();
  const load = (name: string): Promise<Buffer> => {
    const entry = FILES[name]!;
    let content = loaded.get(name);
    if (!content) {
      content = entry.text
        ? Promise.resolve(Buffer.from(entry.text))
        : readFile(path.join(distDir(), entry.file!));
      loaded.set(name, content);
    }
    return content;
  };
  return async (ctx, next) => {
    const name = ctx.path.startsWith(DOCS_ASSETS_PREFIX) ? ctx.path.slice(DOCS_ASSETS_PREFIX.length) : '';
    if (!Object.hasOwn(FILES, name) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      await next();
      return;
    }
    ctx.body = await load(name);
    ctx.type = FILES[name]!.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
  };
}
