import test from 'ava';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REACTORS } from '../src/compose/reactors.ts';
import { READ_MODELS } from '../src/compose/read-models.ts';
import { ROOT } from './helpers/root.ts';

/** The layering rule of ARCHITECTURE.md, checked on the import graph of src/ and projections/:
 *  imports point down (http | jobs | reactors → commands → domain; projections → domain + view
 *  ports), only src/compose/ names an adapter or a store driver, only src/metrics/ the metrics
 *  library, compose imports no CLI module, and nothing outside an adapter tests `instanceof` an
 *  adapter class. */

type Layer =
  | 'domain'
  | 'log-port'
  | 'view-port'
  | 'log-adapter'
  | 'view-adapter'
  | 'projection'
  | 'commands'
  | 'checks'
  | 'reactor-port'
  | 'reactor-adapter'
  | 'reactors'
  | 'jobs'
  | 'http'
  | 'config'
  | 'metrics'
  | 'server'
  | 'compose'
  | 'cli'
  | 'main'
  | 'platform'
  | 'verify';

/** The layer of a file, from its path relative to the repository root. */
const layerOf = (file: string): Layer => {
  const rules: Array<[RegExp, Layer]> = [
    [/^src\/domain\//, 'domain'],
    [/^src\/log\/event-log\.ts$/, 'log-port'],
    [/^src\/log\//, 'log-adapter'],
    [/^src\/views\/(read-models\.ts|[^/]+\/port\.ts)$/, 'view-port'],
    [/^src\/views\/[^/]+\/(sqlite|mongo)(-[\w-]+)?\.ts$/, 'view-adapter'],
    [/^projections\//, 'projection'],
    [/^src\/commands\//, 'commands'],
    [/^src\/checks\//, 'checks'],
    [/^src\/reactors\/(port|[^/]+\/state\/port)\.ts$/, 'reactor-port'],
    [/^src\/reactors\/[^/]+\/state\/(sqlite|mongo)\.ts$/, 'reactor-adapter'],
    [/^src\/reactors\//, 'reactors'],
    [/^src\/jobs\//, 'jobs'],
    [/^src\/http\//, 'http'],
    [/^src\/config(-[\w-]+)?\.ts$/, 'config'],
    [/^src\/metrics\//, 'metrics'],
    [/^src\/server\//, 'server'],
    [/^src\/compose\//, 'compose'],
    [/^src\/cli\//, 'cli'],
    [/^src\/main\.ts$/, 'main'],
    [/^src\/(threads|deadline|startup-error)\.ts$/, 'platform'],
    [/^src\/verify\//, 'verify'],
  ];
  const found = rules.find(([pattern]) => pattern.test(file));
  if (!found)
    throw new Error(
      `${file} is in no layer: add it to the table in test/architecture.test.ts and docs/architecture.md`,
    );
  return found[1];
};

/** What each layer may import. Everything else is an upward or sideways import. */
const ALLOWED: Record<Layer, readonly Layer[]> = {
  domain: ['domain'],
  'log-port': ['domain'],
  'view-port': ['domain', 'log-port'],
  'log-adapter': ['domain', 'log-port', 'platform'],
  'view-adapter': ['domain', 'log-port', 'view-port'],
  // A reactor's state is no read model, but is stored as one is: a reactor's adapters use the
  // stores' machinery (src/views/store/) of their own store.
  'reactor-port': ['domain', 'log-port', 'view-port', 'projection'],
  'reactor-adapter': ['domain', 'log-port', 'view-port', 'reactor-port', 'view-adapter'],
  projection: ['domain', 'log-port', 'view-port'],
  commands: ['domain', 'log-port'],
  checks: ['domain'],
  reactors: ['domain', 'log-port', 'view-port', 'reactor-port', 'commands', 'projection', 'checks'],
  jobs: ['domain', 'log-port', 'view-port', 'commands', 'checks', 'platform'],
  http: ['domain', 'log-port', 'view-port', 'commands', 'checks'],
  config: ['domain'],
  // The metrics registry implements the interfaces the layers declare (HttpMetrics, JobMetrics,
  // NotificationMetrics, the log's observers); its port serves the HTTP layer's metrics app.
  metrics: ['domain', 'log-port', 'http', 'jobs', 'reactors', 'config', 'platform'],
  server: ['config'],
  compose: [
    'domain',
    'log-port',
    'view-port',
    'log-adapter',
    'view-adapter',
    'reactor-port',
    'reactor-adapter',
    'projection',
    'commands',
    'checks',
    'reactors',
    'jobs',
    'http',
    'config',
    'metrics',
    'server',
    'platform',
  ],
  // The CLI's commands use the wiring; the wiring never uses a command (nothing of src/cli/ in
  // compose's list), so what builds a role stays apart from the tools around it.
  cli: ['domain', 'log-port', 'view-port', 'projection', 'commands', 'jobs', 'config', 'compose', 'verify', 'platform'],
  main: ['cli'],
  platform: [],
  // The offline verifier is a second implementation of the tree's hashing, proofs and notes:
  // sharing code with the server would let one bug pass in both.
  verify: [],
};

const ADAPTER_LAYERS: ReadonlySet<Layer> = new Set(['log-adapter', 'view-adapter', 'reactor-adapter']);

/** Store drivers: only adapters and the composition root may use them. */
const DRIVERS = [
  'better-sqlite3',
  'mongodb',
  '@kurrent/kurrentdb-client',
  '@agendajs/mongo-backend',
  '@watchlog/agenda-sqlite',
];

/** The metrics library: one registry per process, built in src/metrics/ (src/metrics/registry.ts);
 *  every other layer reports through the small interface it declares (HttpMetrics, JobMetrics,
 *  NotificationMetrics, the log's CommitObserver). */
const METRICS_LIBRARIES = ['prom-client'];

/** The router: a route comes to exist only by `mount`ing an operation of the table
 *  (src/http/operations/), so the router is imported there and nowhere else. */
const ROUTER = '@koa/router';
const MOUNT = 'src/http/operations/mount.ts';

/** What domain code may import from outside: codecs and pure computation, nothing with I/O
 *  (re2js: the linear-time regular expressions of projects' masking patterns; @watchlog/masking:
 *  the built-in masking rules the SDKs share; rrule-temporal and the Temporal polyfill: maintenance
 *  windows' recurrence rules). */
const DOMAIN_PACKAGES = [
  'io-ts',
  'fp-ts',
  '@datadog/sketches-js',
  'node:crypto',
  're2js',
  '@watchlog/masking',
  'rrule-temporal',
  'temporal-polyfill',
];

/** An adapter's technology: a SQLite adapter never uses a MongoDB one, nor the reverse. */
const technologyOf = (file: string): string | null => /(sqlite|mongo|kurrent)/.exec(file)?.[1] ?? null;

interface SourceFile {
  path: string;
  text: string;
}

const packageOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;

/** The rule's violations in a set of files (paths relative to the repository root). */
const violations = (files: readonly SourceFile[]): string[] => {
  const found: string[] = [];
  const adapterClasses = new Set<string>();
  for (const f of files) {
    if (!ADAPTER_LAYERS.has(layerOf(f.path))) continue;
    for (const m of f.text.matchAll(/export\s+(?:abstract\s+)?class\s+(\w+)/g)) adapterClasses.add(m[1]!);
  }
  for (const f of files) {
    const layer = layerOf(f.path);
    for (const { fileName: specifier } of ts.preProcessFile(f.text, true, true).importedFiles) {
      if (specifier.startsWith('.')) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(f.path), specifier));
        const targetLayer = layerOf(target);
        if (targetLayer !== layer && !ALLOWED[layer].includes(targetLayer)) {
          found.push(`${f.path} (${layer}) imports ${target} (${targetLayer})`);
        }
        if (ADAPTER_LAYERS.has(targetLayer) && layer !== 'compose') {
          if (!ADAPTER_LAYERS.has(layer)) found.push(`${f.path} imports the adapter ${target}: only src/compose/ may`);
          else if (technologyOf(target) !== technologyOf(f.path))
            found.push(`${f.path} imports ${target}, an adapter of another store`);
        }
      } else {
        const pkg = packageOf(specifier);
        if (DRIVERS.includes(pkg) && !ADAPTER_LAYERS.has(layer) && layer !== 'compose') {
          found.push(`${f.path} (${layer}) uses the store driver ${pkg}: only adapters and src/compose/ may`);
        }
        if (pkg === ROUTER && f.path !== MOUNT) {
          found.push(
            `${f.path} (${layer}) uses the router: a route exists only as an operation of the table, mounted ` +
              `by ${MOUNT}`,
          );
        }
        if (METRICS_LIBRARIES.includes(pkg) && layer !== 'metrics') {
          found.push(`${f.path} (${layer}) uses the metrics library ${pkg}: only src/metrics/ may`);
        }
        if (layer === 'domain' && !DOMAIN_PACKAGES.includes(pkg))
          found.push(`${f.path} (domain) imports ${specifier}, which the domain may not`);
        if (layer === 'verify' && !specifier.startsWith('node:'))
          found.push(`${f.path} (verify) imports ${specifier}: the verifier uses Node's built-ins only`);
      }
    }
    if (!ADAPTER_LAYERS.has(layer)) {
      for (const m of f.text.matchAll(/instanceof\s+(\w+)/g)) {
        if (adapterClasses.has(m[1]!)) found.push(`${f.path} (${layer}) tests instanceof ${m[1]}, an adapter class`);
      }
    }
  }
  return found;
};

/** A reactor is not a read model: every read model has the projection the log rebuilds it with,
 *  and reactors, whose state the log cannot give back, are listed apart (src/compose/reactors.ts),
 *  under names no read model has (a name is a checkpoint's and a lease's). */
const registryViolations = (
  readModels: Readonly<Record<string, { readonly name: string; readonly projection: unknown }>>,
  reactors: Readonly<Record<string, { readonly name: string }>>,
): string[] => {
  const found: string[] = [];
  const readModelOf = new Map(Object.entries(readModels).map(([key, entry]) => [entry.name, key]));
  for (const [key, entry] of Object.entries(readModels)) {
    if (entry.projection == null)
      found.push(`read model ${key} has no projection: a reactor's state belongs in the reactor registry`);
  }
  for (const [key, entry] of Object.entries(reactors)) {
    if (Object.hasOwn(readModels, key)) found.push(`reactor ${key} is listed as a read model too`);
    const readModel = readModelOf.get(entry.name);
    if (readModel !== undefined) found.push(`reactor ${key} has the name ${entry.name} of the read model ${readModel}`);
  }
  return found;
};

const root = ROOT;
const sourcesUnder = (dir: string): SourceFile[] =>
  readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(root, rel)).isDirectory()) return sourcesUnder(rel);
    return rel.endsWith('.ts') ? [{ path: rel, text: readFileSync(path.join(root, rel), 'utf8') }] : [];
  });

test('the tree keeps the layering rule', (t) => {
  const files = [...sourcesUnder('src'), ...sourcesUnder('projections')];
  t.true(files.length > 50, 'the walk found the sources');
  t.deepEqual(violations(files), []);
});

test('the check finds upward imports, adapters, drivers and metrics out of place, adapter instanceof', (t) => {
  const file = (p: string, text: string): SourceFile => ({ path: p, text });
  t.deepEqual(
    violations([
      file('src/domain/a.ts', "import { x } from '../http/app.ts';\nimport fs from 'node:fs';"),
      file('src/commands/b.ts', "import type { MonitorsQueries } from '../views/monitors/port.ts';"),
      file(
        'src/http/app.ts',
        "import { SqliteEventLog } from '../log/sqlite/event-log.ts';\nimport { MongoClient } from 'mongodb';",
      ),
      file('src/log/sqlite/event-log.ts', 'export class SqliteEventLog {}'),
      file(
        'src/jobs/trim.ts',
        "import type { EventLog } from '../log/event-log.ts';\n" +
          'const f = (log: EventLog) => log instanceof SqliteEventLog;',
      ),
      file('src/log/event-log.ts', ''),
      file('src/views/monitors/port.ts', ''),
      file('src/views/monitors/sqlite.ts', "import { MongoLeases } from '../store/mongo.ts';"),
      file('src/views/store/mongo.ts', 'export class MongoLeases {}'),
      file(
        'src/compose/roles.ts',
        "import { SqliteEventLog } from '../log/sqlite/event-log.ts';\nimport { MongoClient } from 'mongodb';",
      ),
      file('src/log/sqlite/writer-thread.ts', "import { Histogram } from 'prom-client';"),
      file('src/metrics/registry.ts', "import { Registry } from 'prom-client';"),
      file('src/compose/telemetry.ts', "import { Registry } from 'prom-client';"),
    ]),
    [
      'src/domain/a.ts (domain) imports src/http/app.ts (http)',
      'src/domain/a.ts (domain) imports node:fs, which the domain may not',
      'src/commands/b.ts (commands) imports src/views/monitors/port.ts (view-port)',
      'src/http/app.ts (http) imports src/log/sqlite/event-log.ts (log-adapter)',
      'src/http/app.ts imports the adapter src/log/sqlite/event-log.ts: only src/compose/ may',
      'src/http/app.ts (http) uses the store driver mongodb: only adapters and src/compose/ may',
      'src/jobs/trim.ts (jobs) tests instanceof SqliteEventLog, an adapter class',
      'src/views/monitors/sqlite.ts imports src/views/store/mongo.ts, an adapter of another store',
      'src/log/sqlite/writer-thread.ts (log-adapter) uses the metrics library prom-client: only src/metrics/ may',
      'src/compose/telemetry.ts (compose) uses the metrics library prom-client: only src/metrics/ may',
    ],
  );
});

test('the verifier imports nothing of the project and no package, and only the CLI imports it', (t) => {
  const file = (p: string, text: string): SourceFile => ({ path: p, text });
  t.deepEqual(
    violations([
      file(
        'src/verify/tree.ts',
        "import { createHash } from 'node:crypto';\nimport { leafHash } from " +
          "'../domain/merkle.ts';\nimport fc from 'fast-check';",
      ),
      file(
        'src/verify/stream.ts',
        "import { verifyInclusion } from './tree.ts';\nimport { canonicalJson } from '../domain/canonical-json.ts';",
      ),
      file('src/domain/merkle.ts', "import { verifyInclusion } from '../verify/tree.ts';"),
      file('src/http/routes/proofs.ts', "import { verifyInclusion } from '../../verify/tree.ts';"),
      file('src/cli/run.ts', "import { runVerify } from '../verify/cli.ts';"),
      file('src/cli/verify-data-dir.ts', "import { verifyStream } from '../verify/stream.ts';"),
      file('src/compose/roles.ts', "import { verifyStream } from '../verify/stream.ts';"),
    ]),
    [
      'src/verify/tree.ts (verify) imports src/domain/merkle.ts (domain)',
      "src/verify/tree.ts (verify) imports fast-check: the verifier uses Node's built-ins only",
      'src/verify/stream.ts (verify) imports src/domain/canonical-json.ts (domain)',
      'src/domain/merkle.ts (domain) imports src/verify/tree.ts (verify)',
      'src/http/routes/proofs.ts (http) imports src/verify/tree.ts (verify)',
      'src/compose/roles.ts (compose) imports src/verify/stream.ts (verify)',
    ],
  );
});

test('the wiring imports no CLI module, and main only the CLI', (t) => {
  const file = (p: string, text: string): SourceFile => ({ path: p, text });
  t.deepEqual(
    violations([
      file('src/compose/roles.ts', "import { commandHelp } from '../cli/help.ts';"),
      file('src/compose/stores.ts', "import type { DemoProjects } from '../cli/demo-traffic.ts';"),
      file(
        'src/cli/demo.ts',
        "import { serve } from '../compose/roles.ts';\nimport { openLog } from '../compose/stores.ts';",
      ),
      file('src/cli/help.ts', "import { CONFIG_VARIABLES } from '../config.ts';"),
      file('src/cli/demo-traffic.ts', ''),
      file('src/main.ts', "import { runCommand } from './cli/run.ts';\nimport { serve } from './compose/roles.ts';"),
      file('src/cli/run.ts', ''),
    ]),
    [
      'src/compose/roles.ts (compose) imports src/cli/help.ts (cli)',
      'src/compose/stores.ts (compose) imports src/cli/demo-traffic.ts (cli)',
      'src/main.ts (main) imports src/compose/roles.ts (compose)',
    ],
  );
});

test('a route outside the operation table is reported: only mount uses the router', (t) => {
  const file = (p: string, text: string): SourceFile => ({ path: p, text });
  t.deepEqual(
    violations([
      file('src/http/operations/mount.ts', "import Router from '@koa/router';"),
      file('src/http/routes/extra.ts', "import Router from '@koa/router';\nconst r = new Router();"),
      file('src/compose/roles.ts', "import type Router from '@koa/router';"),
    ]),
    [
      'src/http/routes/extra.ts (http) uses the router: a route exists only as an operation of the ' +
        'table, mounted by src/http/operations/mount.ts',
      'src/compose/roles.ts (compose) uses the router: a route exists only as an operation of the ' +
        'table, mounted by src/http/operations/mount.ts',
    ],
  );
});

test('a file in no layer is reported, so new folders get a place in the rule', (t) => {
  t.throws(() => layerOf('src/somewhere/new.ts'), { message: /is in no layer/ });
});

test('a reactor is not a read model: every read model has a projection, and reactors are listed apart', (t) => {
  t.true(Object.keys(REACTORS).length > 0, 'the reactor registry lists the notification reactor');
  t.deepEqual(registryViolations(READ_MODELS, REACTORS), []);
});

test('the registry check finds a read model with no projection, a reactor listed or named as one', (t) => {
  t.deepEqual(
    registryViolations(
      {
        channels: { name: 'channels', projection: { name: 'channels' } },
        notifier: { name: 'notifications', projection: null },
      },
      { notifier: { name: 'notifier' }, sealer: { name: 'channels' } },
    ),
    [
      "read model notifier has no projection: a reactor's state belongs in the reactor registry",
      'reactor notifier is listed as a read model too',
      'reactor sealer has the name channels of the read model channels',
    ],
  );
});

test('a reactor state adapter is an adapter: only the wiring imports it, and it keeps to its store', (t) => {
  const file = (p: string, text: string): SourceFile => ({ path: p, text });
  t.deepEqual(
    violations([
      file('src/reactors/notifications/state/port.ts', ''),
      file(
        'src/reactors/notifications/state/sqlite.ts',
        "import { SqliteLeases } from '../../../views/store/sqlite.ts';",
      ),
      file(
        'src/reactors/notifications/state/mongo.ts',
        "import { SqliteLeases } from '../../../views/store/sqlite.ts';",
      ),
      file('src/views/store/sqlite.ts', ''),
      file('src/reactors/notifications/reactor.ts', "import { sqliteState } from './state/sqlite.ts';"),
      file(
        'src/views/read-models.ts',
        "import type { NotificationsStateQueries } from '../reactors/notifications/state/port.ts';",
      ),
      file('src/compose/reactors.ts', "import { sqliteState } from '../reactors/notifications/state/sqlite.ts';"),
    ]),
    [
      'src/reactors/notifications/state/mongo.ts imports src/views/store/sqlite.ts, an adapter of another store',
      'src/reactors/notifications/reactor.ts (reactors) imports ' +
        'src/reactors/notifications/state/sqlite.ts (reactor-adapter)',
      'src/reactors/notifications/reactor.ts imports the adapter ' +
        'src/reactors/notifications/state/sqlite.ts: only src/compose/ may',
      'src/views/read-models.ts (view-port) imports src/reactors/notifications/state/port.ts (reactor-port)',
    ],
  );
});
