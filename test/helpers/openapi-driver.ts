import test, { type ExecutionContext } from 'ava';
import type { OpenApiDocument } from '../../src/http/openapi/document.ts';
import { AnswerValidator } from './openapi.ts';
import { login, startTestServer, type TestServer, type TestServerOptions } from './server.ts';

/** Drives the operations of a real server (HTTP on 127.0.0.1, embedded stores) and checks each
 *  real answer against the description the server serves (`GET /v1/openapi.json`): its status
 *  must be documented for the operation, its body valid against the documented schema (objects
 *  refuse undocumented fields), its documented headers present and valid, and no header of
 *  watchlog's own undocumented. Bodies the server took must be valid against the documented
 *  request schemas. The files under test/http/openapi/answers*.test.ts share the operations out
 *  by tag (`DRIVEN_TAGS`); each ends by checking it drove every operation of its tags with each
 *  of its success statuses. */

/** The tags each file drives; together, every tag of the description. */
export const DRIVEN_TAGS = {
  'answers.test.ts': ['Operations', 'Reference', 'Dashboard', 'Accounts', 'Projects'],
  'answers-events.test.ts': ['Ingest', 'Events'],
  'answers-monitors.test.ts': ['Monitors', 'Notifications', 'Auditors'],
  'answers-status-pages.test.ts': ['Status pages', 'Public status pages'],
  'answers-sinks.test.ts': ['Sinks'],
  'answers-factors.test.ts': ['Sign-in', 'Second factors'],
  'answers-sessions.test.ts': ['Sessions'],
  'answers-sso.test.ts': ['Single sign-on'],
} as const;

export class Clock {
  constructor(public ms: number) {}
  readonly now = () => new Date(this.ms);
}

export interface Request {
  token?: string;
  apiKey?: string;
  /** JSON, sent as application/json. */
  body?: unknown;
  /** A body sent as it is, with `contentType`. */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** A body the server takes in part (a batch with invalid events): not checked against the
   *  request schema, which describes what a client should send. */
  partlyInvalid?: boolean;
}
// Parsed JSON answers are read by the scenario like fetch's `json()`.
export interface Answered {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: the scenarios read answers as fetch's json() gives them
  body: any;
  text: string;
}

export interface Driver {
  readonly server: TestServer;
  /** The admin's token. */
  readonly admin: string;
  /** The description the server serves. */
  readonly doc: OpenApiDocument;
  /** One request to operation `op` (`GET /v1/monitors/:id`) at `url`, its answer checked against
   *  the description; `expected` is the status the scenario means to reach. */
  call(t: ExecutionContext, op: string, url: string, request: Request, expected: number): Promise<Answered>;
  /** `METHOD /route STATUS` of every answer checked. */
  readonly driven: ReadonlySet<string>;
}

/** A server started before the file's tests and stopped after them, and its driver. */
export const driveServer = (options: TestServerOptions): (() => Driver) => {
  let driver: Driver | undefined;
  let server: TestServer | undefined;
  test.before(async () => {
    server = await startTestServer(options);
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    const validator = new AnswerValidator(doc);
    const driven = new Set<string>();
    const base = server.url;
    driver = {
      server,
      admin: await login(base),
      doc,
      driven,
      async call(t, op, url, request, expected) {
        const [method, route] = op.split(' ') as [string, string];
        const headers: Record<string, string> = { ...request.headers };
        if (request.token) headers.authorization = `Bearer ${request.token}`;
        if (request.apiKey) headers['x-api-key'] = request.apiKey;
        let body: string | undefined;
        if (request.body !== undefined) {
          body = JSON.stringify(request.body);
          headers['content-type'] = 'application/json';
        } else if (request.raw !== undefined) {
          body = request.raw;
          headers['content-type'] = request.contentType ?? 'application/json';
        }
        // A redirect is an answer to check, not one to follow.
        const res = await fetch(base + url, { method, headers, body, redirect: 'manual' });
        const text = await res.text();
        t.deepEqual(
          validator.problems({ method, route, status: res.status, headers: res.headers, body: text }),
          [],
          `${op} at ${url}`,
        );
        t.is(res.status, expected, `${op} at ${url}: ${text.slice(0, 300)}`);
        if (res.status < 300 && request.body !== undefined && !request.partlyInvalid)
          t.deepEqual(validator.requestProblems(method, route, request.body), [], `${op}: the body it took`);
        driven.add(`${method} ${route} ${res.status}`);
        let parsed: unknown = text;
        try {
          parsed = text === '' ? null : JSON.parse(text);
        } catch {
          // not JSON: the text is the body
        }
        return { status: res.status, headers: res.headers, body: parsed, text };
      },
    };
  });
  test.after.always(async () => {
    await server?.stop();
  });
  return () => {
    if (!driver) throw new Error('the server has not started');
    return driver;
  };
};

/** The last test of each file: every operation of its tags driven with each success status. */
export const everyOperationDriven = (file: keyof typeof DRIVEN_TAGS, driver: () => Driver): void => {
  test.serial(`every operation tagged ${DRIVEN_TAGS[file].join(', ')} was driven, with each success status`, (t) => {
    const { doc, driven } = driver();
    const tags = new Set<string>(DRIVEN_TAGS[file]);
    const missing: string[] = [];
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.tags.some((tag) => tags.has(tag))) continue;
        operations += 1;
        for (const status of Object.keys(op.responses).filter((s) => Number(s) < 400)) {
          const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')} ${status}`;
          if (!driven.has(key)) missing.push(key);
        }
      }
    }
    t.true(operations > 0, 'the tags name operations of the description');
    t.deepEqual(missing, [], `add a call for each to ${file}`);
  });
};
