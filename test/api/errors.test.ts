import type { Server } from 'node:http';
import { expect } from 'chai';
import { z } from 'zod';
import { createApp } from '../../api/app.js';
import { route } from '../../api/route.js';
import { allRoutes } from '../../api/routes/index.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';

/** Error mapping of D11, through a real app with two extra test routes. */
describe('error mapping', () => {
  let http: HttpClient;
  let server: Server;

  before(async () => {
    const deps = await stack().deps();
    const extra = [
      route({
        method: 'POST',
        path: '/test/echo',
        operationId: 'echo',
        summary: 'echo',
        scopes: 'public',
        body: z.strictObject({ name: z.string() }),
        handler: async ({ body }) => body,
      }),
      route({
        method: 'GET',
        path: '/test/boom',
        operationId: 'fail',
        summary: 'fails',
        scopes: 'public',
        handler: async () => {
          throw new Error('select secret from internals');
        },
      }),
    ];
    server = createApp(deps, [...allRoutes(), ...extra]).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    http = client(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  });
  after(() => server.close());

  const isErrorBody = (body: any, path: string) => {
    expect(body).to.have.all.keys('type', 'title', 'detail', 'instance');
    expect(body.instance).to.equal(path);
  };

  it('answers an unknown route with 404 Not Found', async () => {
    const res = await http.get('/v1/nothing-here');
    expect(res.status).to.equal(404);
    isErrorBody(res.body, '/v1/nothing-here');
    expect(res.body).to.include({ type: 'NOT_FOUND', title: 'Not Found' });
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await http.send('DELETE', '/healthz');
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.contain('GET');
    isErrorBody(res.body, '/healthz');
  });

  it('answers malformed JSON with 400 Malformed JSON', async () => {
    const res = await http.post('/test/echo', {
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ type: 'VALIDATION_ERROR', title: 'Malformed JSON' });
  });

  it('answers a body over 1 MiB with 413', async () => {
    const res = await http.post('/test/echo', { body: { name: 'x'.repeat(1024 * 1024 + 10) } });
    expect(res.status).to.equal(413);
    expect(res.body.type).to.equal('PAYLOAD_TOO_LARGE');
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await http.post('/test/echo', {
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(415);
    expect(res.body.type).to.equal('UNSUPPORTED_MEDIA_TYPE');
  });

  it('names the field and the rule in a validation error', async () => {
    const res = await http.post('/test/echo', { body: { name: 3, extra: true } });
    expect(res.status).to.equal(400);
    expect(res.body.type).to.equal('VALIDATION_ERROR');
    expect(res.body.detail).to.match(/extra: is not an allowed field/);
    const typed = await http.post('/test/echo', { body: { name: 3 } });
    expect(typed.body.detail).to.match(/^name: /);
  });

  it('says a missing field is required, whatever the schema would say of its type', async () => {
    const res = await http.post('/test/echo', { body: {} });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ type: 'VALIDATION_ERROR', detail: 'name: is required' });
  });

  it('answers a null or non-object JSON body 400 body: must be an object', async () => {
    for (const rawBody of ['null', '[]', '"name"', '7']) {
      const res = await http.post('/test/echo', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(res.status, rawBody).to.equal(400);
      expect(res.body, rawBody).to.include({ type: 'VALIDATION_ERROR', detail: 'body: must be an object' });
    }
  });

  it('answers an unexpected failure with 500 E5000, an empty detail and nothing internal', async () => {
    const res = await http.get('/test/boom', { headers: { 'x-request-id': 'trace-me-123' } });
    expect(res.status).to.equal(500);
    expect(res.body).to.deep.equal({
      type: 'E5000',
      title: 'An unexpected error occurred',
      detail: '',
      instance: '/test/boom',
    });
    expect(res.text).not.to.contain('secret');
    expect(res.headers.get('x-request-id')).to.equal('trace-me-123');
  });

  it('gives every response a request id', async () => {
    const res = await http.get('/healthz');
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
