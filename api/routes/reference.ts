import { z } from 'zod';
import { buildOpenApiDocument, type OpenApiDocument } from '../openapi/document.js';
import { route, type RouteDef } from '../route.js';

const PAGE_TITLE = 'Group Health Insurance Administration API reference';

/** The page of GET /docs: Swagger UI from node_modules (api/middleware/docs-assets.ts), no CDN. */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${PAGE_TITLE}</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/init.js"></script>
  </body>
</html>
`;

const openApiDocumentSchema = z
  .looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'OpenApiDocument', description: 'This document (OpenAPI 3.1).' });

/**
 * GET /openapi.json and GET /docs. `routes` is the full list the app serves, these two included,
 * so the reference always describes exactly what the router mounts.
 */
export function referenceRoutes(routes: () => readonly RouteDef[]): RouteDef[] {
  // Built on first request and kept: the routes and the base URL do not change while the app runs.
  const documents = new Map<string, OpenApiDocument>();
  const documentFor = (serverUrl: string) => {
    let doc = documents.get(serverUrl);
    if (!doc) documents.set(serverUrl, (doc = buildOpenApiDocument(routes(), { serverUrl })));
    return doc;
  };
  return [
    route({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This API reference as an OpenAPI 3.1 document',
      scopes: 'public',
      response: {
        contentType: 'application/json',
        schema: openApiDocumentSchema,
        description: 'The document',
      },
      handler: async ({ deps, ctx }) => {
        ctx.body = documentFor(deps.config.baseUrl);
        ctx.set('Cache-Control', 'public, max-age=300');
        return undefined;
      },
    }),
    route({
      method: 'GET',
      path: '/docs',
      operationId: 'getApiReferencePage',
      summary: 'This API reference as a web page',
      scopes: 'public',
      response: {
        contentType: 'text/html',
        schema: z.string().meta({ description: 'An HTML page rendering /openapi.json' }),
        description: 'The page',
      },
      handler: async ({ deps, ctx }) => {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = DOCS_PAGE;
        // Scripts and styles only from this origin; inline style attributes are how the viewer lays out.
        ctx.set(
          'Content-Security-Policy',
          `default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self' ${deps.config.baseUrl}`,
        );
        ctx.set('X-Content-Type-Options', 'nosniff');
        return undefined;
      },
    }),
  ];
}
