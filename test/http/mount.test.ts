import test from 'ava';
import * as t from 'io-ts';
import Koa from 'koa';
import pino from 'pino';
import type { AppState } from '../../src/http/state.ts';
import { errorHandler } from '../../src/http/middleware/errors.ts';
import { mount, type MountDeps } from '../../src/http/operations/mount.ts';
import { json, ok, operation } from '../../src/http/operations/operation.ts';
import { uuidParam } from '../../src/http/operations/common.ts';
import { capturingLogger } from '../helpers/server.ts';

/** `mount` on tables of its own: what it refuses at start-up, and the answer check. The order of
 *  the checks on real operations is in request-checks.test.ts. */

const quiet = pino({ level: 'silent' });
const mountDeps = (checkAnswers: boolean, logger = quiet): MountDeps => ({
  bodyLimitBytes: 1024,
  bodyTimeoutMs: 1000,
  now: () => new Date(),
  checkAnswers,
  logger,
});

const Thing = t.type({ id: t.string, size: t.number });
const things = {
  get: operation({
    method: 'get',
    path: '/things/:thing',
    tag: 'Things',
    summary: 'A thing',
    auth: 'none',
    params: { thing: uuidParam('thing') },
    query: t.exact(t.partial({ drift: t.keyof({ field: null, value: null }) })),
    responses: { 200: json('the thing', Thing) },
  }),
};

/** The thing, or with `?drift=` an answer its codec does not declare (the handler's type allows
 *  the extra field: objects may carry more; the value is cast to stand for a drifted view). */
const serve = (checkAnswers: boolean, logger = quiet) => {
  const app = new Koa<AppState>();
  app.use(errorHandler(logger));
  const mounted = mount(
    { things },
    {
      things: {
        get: ({ params, query }) => {
          const thing = { id: params.thing, size: 3 };
          if (query.drift === 'field') return ok({ ...thing, secret: 'hunter2' });
          if (query.drift === 'value') return ok({ ...thing, size: 'three' as unknown as number });
          return ok(thing);
        },
      },
    },
    {},
    mountDeps(checkAnswers, logger),
  );
  app.use(mounted.routes);
  return app.callback();
};

const ask = async (handler: ReturnType<typeof serve>, url: string) => {
  const { createServer } = await import('node:http');
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}${url}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } finally {
    server.close();
  }
};

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

test('a path parameter its codec refuses is 404, as an unknown one is', async (t) => {
  const answer = await ask(serve(false), '/things/not-a-uuid');
  t.is(answer.status, 404);
  t.deepEqual(answer.body, { error: { code: 'not_found', message: 'thing not found', details: [] } });
  t.is((await ask(serve(false), `/things/${ID.toUpperCase()}`)).body.id, ID, 'UUIDs in lower case');
});

test(
  'with answers checked, a field the codec does not declare ' + 'or a value it refuses is a 500 that is logged',
  async (t) => {
    const { logger, lines } = capturingLogger();
    for (const drift of ['field', 'value']) {
      const answer = await ask(serve(true, logger), `/things/${ID}?drift=${drift}`);
      t.is(answer.status, 500, drift);
      t.is((answer.body.error as { code: string }).code, 'internal_error');
    }
    const logged = lines.filter((l) => l.msg === 'the answer does not match its declaration');
    t.deepEqual(
      logged.map((l) => l.faults),
      [
        [{ path: 'secret', message: "is not declared by the answer's codec" }],
        [{ path: 'size', message: 'must be a number' }],
      ],
    );
    t.is((await ask(serve(true, logger), `/things/${ID}`)).status, 200, 'a true answer passes');
    t.is((await ask(serve(false), `/things/${ID}?drift=field`)).status, 200, 'unchecked in production');
  },
);

test(
  'mount refuses a table it could not apply: ' + 'an undeclared path parameter, a shadowed path, a missing handler',
  (t) => {
    const deps = mountDeps(false);
    const undeclared = { get: operation({ ...things.get, path: '/things/:thing/:part' }) };
    t.throws(() => mount({ undeclared }, { undeclared: { get: () => ok({ id: '', size: 0 }) } }, {}, deps), {
      message: 'GET /things/:thing/:part: the path parameter part is not declared',
    });
    const shadowed = { param: things.get, fixed: operation({ ...things.get, path: '/things/all', params: {} }) };
    const handle = () => ok({ id: '', size: 0 });
    t.throws(() => mount({ shadowed }, { shadowed: { param: handle, fixed: handle } }, {}, deps), {
      message: 'GET /things/all is mounted after /things/:thing, which takes its requests',
    });
    t.throws(() => mount({ things }, { things: {} } as never, {}, deps), {
      message: 'GET /things/:thing (things.get) has no handler',
    });
  },
);
