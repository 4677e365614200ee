import { CONFIG_VARIABLES } from '../config.ts';
import { CONFIG_COMMANDS } from './config/help-text.ts';

/** `watchlog --help` and `watchlog <command> --help`. The variables are those the configuration
 *  decodes, so the list cannot drift from the code; the README's table says what each means. */

const STORES =
  'WATCHLOG_DATA_DIR (embedded SQLite files), or WATCHLOG_EVENTSTORE_URL (KurrentDB log,\n  ' +
  'WATCHLOG_EVENTSTORE_NAMESPACE) and WATCHLOG_MONGO_URL (MongoDB read models and jobs)';

const COMMANDS: Record<string, { summary: string; text: string }> = {
  start: {
    summary:
      'HTTP API, projectors, monitor checks, anomaly scan and notifications in one process\n             (the default)',
    text: `Runs the API on HOST:PORT, the log's writer thread, a thread that projects every read model
and runs the notification reactor, and Agenda (monitor checks, the anomaly scan, log trim and
compaction), which starts once the API listens. /healthz answers as soon as the process runs;
/readyz once a request would succeed. SIGTERM drains requests, stops jobs and projectors, and
exits 0.

Stores: ${STORES}.
Every variable applies (\`watchlog --help\` lists them).`,
  },
  api: {
    summary: 'HTTP API only (run any number of them beside one or more workers)',
    text: `Runs the API on HOST:PORT and nothing else: read models are projected by a \`watchlog worker\`.
Without one, changes do not show, /readyz stays 503 naming each read model without a projector,
and one warning says so. Creates the first admin (WATCHLOG_ADMIN_EMAIL, WATCHLOG_ADMIN_PASSWORD)
when no user exists.

Stores: ${STORES}.
Also: PORT, HOST, WATCHLOG_JWT_SECRET (the same on every API process), WATCHLOG_JWT_TTL_SECONDS,
  WATCHLOG_BODY_LIMIT_BYTES, WATCHLOG_BATCH_*, WATCHLOG_IDEMPOTENCY_WINDOW_SECONDS,
  WATCHLOG_INGEST_RATE_LIMIT, WATCHLOG_READY_MAX_LAG_MS, WATCHLOG_LOGIN_*, WATCHLOG_EGRESS_*
  (POST /v1/monitors/:id/test and /v1/channels/:id/test connect), WATCHLOG_ANOMALY_DEFAULTS
  (settings answers), WATCHLOG_VAPID_* (the public key browsers subscribe with, Web Push tests),
  WATCHLOG_PUBLIC_URL (dashboard links in test notifications),
  WATCHLOG_METRICS_* (GET /metrics behind a token, or on a port of its own),
  WATCHLOG_DASHBOARD_DIR (the dashboard served at /), WATCHLOG_CHECK_ANSWERS (each answer checked
  against its declared codec).`,
  },
  worker: {
    summary:
      'projectors, Agenda jobs (monitor checks, anomaly scan, log trim and compaction)\n             and notifications',
    text: `Runs the projectors (one per read model, each in one worker at a time through a lease), the
notification reactor, and Agenda's jobs: monitor checks, the anomaly scan, log trim and compaction.
No HTTP API: its metrics are served only on WATCHLOG_METRICS_PORT (WATCHLOG_METRICS_HOST), when set.

Stores: ${STORES}.
Also: WATCHLOG_PROJECTION_LEASE_MS, WATCHLOG_ANOMALY_SCAN_SECONDS, WATCHLOG_ANOMALY_DEFAULTS,
  WATCHLOG_EGRESS_DENY, WATCHLOG_EGRESS_ALLOW, WATCHLOG_VAPID_*, WATCHLOG_PUBLIC_URL,
  WATCHLOG_NOTIFY_DEGRADED_AFTER, WATCHLOG_SINK_*, WATCHLOG_LOG_LEVEL, WATCHLOG_METRICS_PORT,
  WATCHLOG_METRICS_HOST, WATCHLOG_METRICS_TOKEN.`,
  },
  rebuild: {
    summary: 'build every read model again from the log, beside the running service, with a\n             progress bar',
    text: `Builds every read model again from the whole log, reading each batch once for all of them,
with a progress bar, rate and ETA on stderr. The log is not changed.

Embedded store: the service need not stop. The read models are built as a new file
(views-<n>.db) in bulk, caught up with what was appended meanwhile, and published: views.db
then names it, and every running process moves to it within a second, answering from the old
one until then. One rebuild runs at a time. MongoDB: every read model is dropped and replayed in
place, which refuses, in one line, while a worker holds a projection (stop the service first).

Stores: ${STORES}.`,
  },
  demo: {
    summary: 'fill ./demo-data with a realistic day of traffic, then run the service on it',
    text: `Fills a data dir (./demo-data, or WATCHLOG_DATA_DIR) with a day of made-up traffic and runs
the service on it as \`watchlog start\` does, then prints the URL and how to sign in. The day:
two projects (Acme Shop: storefront, a browser app, with auth, catalog and checkout-api;
Acme Back Office: billing, reports), WATCHLOG_DEMO_EVENTS events (default 30000) on a daily
curve, 4xx and 5xx, slow calls, sessions, masked secrets, orphan browser events, a brute-force
attempt that raises an anomaly alert, and two monitors: one UP (a tiny HTTP server this process
runs on 127.0.0.1) and one DOWN (a closed port). A few live events follow every 4 s.

The admin is demo@watchlog.local with a password generated and printed once, or
WATCHLOG_ADMIN_EMAIL and WATCHLOG_ADMIN_PASSWORD. Refuses, in one line, a directory that holds
anything it did not make; a directory it made is emptied and filled again. Embedded stores only.
The log is quiet (WATCHLOG_LOG_LEVEL=warn) unless WATCHLOG_LOG_LEVEL is set.

Example:
  npx watchlog demo            # or: npm run demo`,
  },
  admin: {
    summary: 'account administration: `watchlog admin --help`',
    text: `Usage: watchlog admin reset-password EMAIL

  reset-password EMAIL   set a new password for the user with this e-mail (an admin
                         locked out, say). The new password is the first line of
                         standard input; when standard input is a terminal or empty,
                         one is generated and printed. Tokens issued before the reset
                         are refused, and the account's failed logins are forgotten.
                         Writes to the log directly, so it works whether or not the
                         service runs; use the same WATCHLOG_DATA_DIR (or
                         WATCHLOG_EVENTSTORE_URL and WATCHLOG_MONGO_URL) as the service.

Example:
  printf '%s\\n' 'a new long password' | watchlog admin reset-password admin@example.com`,
  },
  verify: {
    summary: 'check a replayed stream, a record or a consistency proof against signed checkpoints',
    text: `Usage:
  watchlog verify --key KEY --checkpoint NOTE [--checkpoint NOTE…] --stream records.ndjson
                  [--allow-missing]
  watchlog verify --key KEY --checkpoint NOTE --record record.json --proof inclusion.json
  watchlog verify --key KEY --checkpoint OLD --checkpoint NEW --proof consistency.json
  watchlog verify --data-dir DIR

Checks, with no server and no database, that what the service handed out is what it signed
(docs/auditors.md says how): each checkpoint's Ed25519 signature, then
  --stream    every record of GET /v1/stream gives its leaf hash (else: edited), the leaf
              indexes run 0, 1, 2… (else: deleted, reordered), the stream reaches every
              checkpoint's size (else: truncated), and the leaves give each checkpoint's
              root (else: the stored tree was altered, between which sizes)
  --record    one line of the stream, with --proof the answer of GET /v1/proofs/inclusion
  --proof     alone, with two checkpoints: the answer of GET /v1/proofs/consistency
  --data-dir  the server's own check of a stopped data dir (embedded log)

  --key FILE         the verifier key (name+id+base64), or the answer of
                     GET /v1/checkpoints/key; repeatable (one of them must sign each note)
  --checkpoint FILE  a signed note, the answer of GET /v1/checkpoints/latest, or a file
                     of notes as WATCHLOG_WITNESS_FILE keeps them; repeatable
  --allow-missing    accept records the log no longer has ({"missing":true} lines) by
                     their leaf hash instead of failing on them

Exits 0 and prints what it verified (one line per checkpoint: size and root), 1 naming the
first thing that failed, 2 when it cannot run (bad usage, unreadable files, an unusable key).

Example:
  watchlog verify --key key.json --checkpoint latest.json --stream records.ndjson`,
  },
  ...CONFIG_COMMANDS,
};

export const COMMAND_NAMES = Object.keys(COMMANDS);

/** The variables, wrapped to the terminal's 80 columns. */
const variables = (): string => {
  const lines: string[] = [];
  let line = ' ';
  for (const name of CONFIG_VARIABLES) {
    if (line.length + name.length + 2 > 80) {
      lines.push(line.trimEnd());
      line = ' ';
    }
    line += ` ${name},`;
  }
  lines.push(line.replace(/,$/, ''));
  return lines.join('\n');
};

export const generalHelp = (): string => `watchlog — self-hosted audit logging and uptime monitoring

Usage: watchlog <command> [--help]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(9)}  ${c.summary}`)
  .join('\n')}

Options:
  -h, --help     show this help (\`watchlog <command> --help\` for a command's own)
  -v, --version  print the version

Configuration comes from environment variables (the README's table says what each means):
${variables()}
`;

export const commandHelp = (command: string): string | null => {
  const c = COMMANDS[command];
  if (!c) return null;
  const usage = c.text.startsWith('Usage:') ? '' : `\nUsage: watchlog ${command}\n`;
  return `watchlog ${command} — ${c.summary.replace(/\s*\n\s*/g, ' ')}\n${usage}\n${c.text}\n`;
};
