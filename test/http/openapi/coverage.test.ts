import test from 'ava';
import type Router from '@koa/router';
import pino from 'pino';
import { appFor } from '../../../src/compose/roles.ts';
import { DASHBOARD_CSP } from '../../../src/http/dashboard.ts';
import type { OpenApiDocument } from '../../../src/http/openapi/document.ts';
import { startTestServer } from '../../helpers/server.ts';

/** The description cannot lack a route: the routes the router of the real app has (as
 *  `watchlog start` builds it, with the metrics endpoint on) against the operations the served
 *  description lists. A route without an entry in src/http/openapi/operations.ts fails here;
 *  so does an entry whose route is gone, unless it is a page the dashboard serves. */

test('every route of the router is described, and every described operation is a route or a dashboard page', async (t) => {
  const server = await startTestServer({ env: { WATCHLOG_METRICS_TOKEN: 'coverage-metrics-token-0123' } });
  t.teardown(() => server.stop());
  const app = appFor(server.runtime, server.config, pino({ level: 'silent' }), () => new Date(), {
    bootstrapped: () => true,
    telemetry: server.telemetry,
  });
  // @koa/router marks the middleware `routes()` returns with the router it dispatches to.
  const dispatchers = app.middleware.flatMap((m) =>
    'router' in m ? [(m as unknown as { router: Router }).router] : [],
  );
  t.is(dispatchers.length, 1, 'the app has one router');
  // HEAD is served wherever GET is: the description says so once, not per route.
  const routes = dispatchers[0]!.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`),
  );
  t.true(routes.length > 40, `${routes.length} routes`);

  const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as OpenApiDocument;
  const described = Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
  );

  t.deepEqual(
    routes.filter((r) => !described.includes(r)),
    [],
    'routes the description lacks: describe each in src/http/openapi/operations.ts',
  );
  const pages = described.filter((d) => !routes.includes(d));
  for (const page of pages) {
    const [method, path] = page.split(' ') as [string, string];
    t.is(method, 'GET', `${page} is no route of the router, so it can only be a dashboard page`);
    const res = await fetch(server.url + path, { headers: { accept: 'text/html' } });
    t.is(res.status, 200, `${page}: described, but neither a route nor a dashboard page`);
    t.is(res.headers.get('content-security-policy'), DASHBOARD_CSP, `${page} is served by the dashboard`);
  }
  t.true(new Set(described).size === described.length, 'no operation is described twice');
});
