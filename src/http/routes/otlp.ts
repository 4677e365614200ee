import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { Context } from 'koa';
import { recordAuditEvents } from '../../commands/ingest.ts';
import { setOtlpSettings } from '../../commands/projects.ts';
import { SKIP_REASONS, mapTraces } from '../../domain/otlp-mapping.ts';
import { decodeTracesJson } from '../../domain/otlp-json.ts';
import { decodeTracesProto, encodeTracesResponseProto } from '../../domain/otlp-proto.ts';
import { OtlpDecodeError, type OtlpTraces, type PartialSuccess } from '../../domain/otlp-traces.ts';
import type { ActiveKey } from '../../views/access/port.ts';
import type { RouteDeps } from '../deps.ts';
import { MAX_DEPTH, exceedsDepth, readRaw } from '../middleware/body.ts';
import { HttpError } from '../middleware/errors.ts';
import { OTLP_PROTOBUF, type OtlpSettingsAnswer, type otlpOperations } from '../operations/otlp.ts';
import { type Handlers, ok } from '../operations/operation.ts';
import type { AppState } from '../state.ts';

const gunzipAsync = promisify(gunzip);

type Encoding = 'protobuf' | 'json';

/** OTLP/HTTP's two encodings; anything else is 415 (the spec's answer to a type it does not take). */
const encodingOf = (ctx: Context): Encoding => {
  const [mediaType = '', ...params] = ctx.get('content-type').toLowerCase().split(';');
  const type = mediaType.trim();
  const charset = params.map((p) => p.trim()).find((p) => p.startsWith('charset='));
  if (type === OTLP_PROTOBUF) return 'protobuf';
  if (type === 'application/json' && (charset === undefined || /^charset="?utf-?8"?$/.test(charset))) return 'json';
  throw new HttpError(415, 'unsupported_media_type', `Content-Type must be ${OTLP_PROTOBUF} or application/json`);
};

const invalid = (path: string, message: string) =>
  new HttpError(400, 'validation_error', `invalid OTLP export: ${path} ${message}`, [{ path, message }]);

/** The body, inflated when gzipped: the compressed and the inflated bytes each within the batch
 *  limit (WATCHLOG_BATCH_BODY_LIMIT_BYTES), so a small gzip bomb stops at the limit. */
const readExport = async (ctx: Context, deps: RouteDeps): Promise<Buffer> => {
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity' && encoding !== 'gzip')
    throw new HttpError(415, 'unsupported_media_type', 'Content-Encoding must be gzip, or none');
  const limit = deps.ingest.batchBodyLimitBytes;
  const raw = await readRaw(ctx, { ...deps, bodyLimitBytes: limit });
  if (encoding !== 'gzip') return raw;
  try {
    return await gunzipAsync(raw, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new HttpError(413, 'payload_too_large', `request body inflates beyond ${limit} bytes`);
    throw invalid('body', 'is not valid gzip');
  }
};

const decode = (body: Buffer, encoding: Encoding): OtlpTraces => {
  try {
    if (encoding === 'protobuf') return decodeTracesProto(body);
    let parsed: unknown;
    try {
      // `JSON.parse` makes `__proto__` an own data property, and the decoder reads own keys only.
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new OtlpDecodeError('body', 'is not valid JSON');
    }
    if (exceedsDepth(parsed, MAX_DEPTH)) throw new OtlpDecodeError('body', `nests deeper than ${MAX_DEPTH} levels`);
    return decodeTracesJson(parsed);
  } catch (error) {
    if (error instanceof OtlpDecodeError) throw invalid(error.path, error.reason);
    throw error;
  }
};

/** Up to this many spans' faults are spelt out in `error_message`; the count covers them all. */
const MESSAGES = 5;

const answerOf = (partial: PartialSuccess | null, encoding: Encoding) =>
  encoding === 'protobuf'
    ? ok(encodeTracesResponseProto(partial), { 'Content-Type': OTLP_PROTOBUF })
    : ok(
        partial === null
          ? {}
          : { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } },
      );

const conflict = "was stored before with other content (the project's OTLP settings changed since?)";

/** An export's turn: decoded, mapped, its events appended as a batch's are, the answer made. */
const ingestExport = async (ctx: Context & { state: AppState }, deps: RouteDeps, key: ActiveKey) => {
  const encoding = encodingOf(ctx);
  const traces = decode(await readExport(ctx, deps), encoding);
  const { events, skipped, rejected } = mapTraces(traces, await deps.otlpSettings.of(key.project_id));
  for (const reason of SKIP_REASONS) {
    const count = skipped.get(reason);
    if (count) deps.metrics?.otlpSpansDropped(reason, count);
  }
  const faults = rejected.map((details) => details.map((d) => `${d.path} ${d.message}`).join('; '));
  if (events.length > 0) {
    await deps.ingestRate.take(key, events.length);
    const masking = await deps.maskingRules.of(key.project_id);
    const ingested = await recordAuditEvents(
      deps.commands.log,
      key.project_id,
      events.map(({ input, idempotencyKey }) => ({ input, idempotencyKey })),
      { actor: `project:${key.project_id}`, correlationId: ctx.state.correlationId, now: deps.now },
      masking,
      deps.ingest.idempotencyWindowMs,
    );
    ingested.forEach((result, i) => {
      if (result.conflict) faults.push(`span ${events[i]!.idempotencyKey} ${conflict}`);
    });
  }
  if (faults.length > 0) deps.metrics?.otlpSpansDropped('invalid', faults.length);
  const partial =
    faults.length === 0
      ? null
      : {
          rejectedSpans: faults.length,
          errorMessage:
            faults.slice(0, MESSAGES).join(' | ') +
            (faults.length > MESSAGES ? ` (and ${faults.length - MESSAGES} more)` : ''),
        };
  return answerOf(partial, encoding);
};

const settingsOf = async (deps: RouteDeps, projectId: string): Promise<OtlpSettingsAnswer> => {
  const own = await deps.readModels.otlp.settingsOf(projectId);
  const { identifier_attribute, default_environment, unsupported_methods } = await deps.otlpSettings.of(projectId);
  return {
    project_id: projectId,
    identifier_attribute,
    default_environment,
    unsupported_methods,
    updated_at: own?.updated_at ?? null,
  };
};

export const otlpHandlers: Handlers<typeof otlpOperations, RouteDeps> = {
  traces: ({ ctx, key }, deps) => deps.batches.run(() => ingestExport(ctx, deps, key)),
  getSettings: async ({ resource: project }, deps) => ok(await settingsOf(deps, project.id)),
  setSettings: async ({ resource: project, body: settings, command }, deps) => {
    const { position } = await setOtlpSettings(deps.commands, project.id, settings, command);
    await deps.caughtUp(['otlp'], position);
    deps.otlpSettings.invalidate(project.id);
    return ok(await settingsOf(deps, project.id));
  },
};
