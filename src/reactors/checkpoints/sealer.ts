import { appendFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import got from 'got';
import type { Logger } from 'pino';
import { refusalOf, type EgressPolicy } from '../../checks/egress.ts';
import { checkpointOrigin, checkpointText, type CheckpointSigner } from '../../domain/checkpoint.ts';
import { recordCheckpoint } from '../../commands/checkpoints.ts';
import type { EventLog } from '../../log/event-log.ts';
import type { ReadModels } from '../../views/read-models.ts';
import type { Leases } from '../../views/store/port.ts';

/** Where checkpoints are copied beyond the operator's reach (docs/auditors.md#checkpoints). */
export interface Witnesses {
  /** Each note is POSTed here as text/plain, through the egress policy. */
  readonly url?: string | undefined;
  /** Each note is appended here, then a blank line. */
  readonly file?: string | undefined;
}

export interface SealerDeps {
  readonly log: EventLog;
  readonly readModels: Pick<ReadModels, 'tree'>;
  readonly leases: Leases;
  readonly signer: CheckpointSigner;
  /** WATCHLOG_LOG_ORIGIN: checkpoints' origins are it and the project. */
  readonly logOrigin: string;
  readonly witnesses: Witnesses;
  readonly egress: EgressPolicy;
  readonly logger: Logger;
  readonly now?: () => Date;
}

export const SEALER = 'checkpoint-sealer';

/** The checkpoint reactor: every `intervalMs`, the tree of each project that grew since its last
 *  checkpoint is signed, the signed note stored in the log (`CheckpointSigned`, stream
 *  `checkpoints-{project}`) and copied to the witnesses. One sealer at a time across workers (a
 *  lease); two that overlap sign the same tree head the same way (Ed25519 is deterministic), so a
 *  duplicate changes nothing an auditor sees. */
export class CheckpointSealer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly holder = `${SEALER}:${randomUUID()}`;
  /** What this sealer signed, by project: the read model shows a checkpoint only once projected. */
  private readonly sealed = new Map<string, number>();

  constructor(
    private readonly deps: SealerDeps,
    private readonly options: { intervalMs: number; leaseTtlMs: number },
  ) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.tickOnce().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.options.intervalMs);
      });
    };
    this.timer = setTimeout(tick, this.options.intervalMs);
  }

  private async tickOnce(): Promise<void> {
    try {
      if (!(await this.deps.leases.acquire(SEALER, this.holder, this.options.leaseTtlMs))) return;
      await this.sealOnce();
    } catch (err) {
      this.deps.logger.error({ err }, 'checkpoints could not be sealed; trying again at the next interval');
    }
  }

  /** Signs every project whose tree is larger than its last checkpoint; resolves to how many. */
  async sealOnce(): Promise<number> {
    const now = this.deps.now ?? (() => new Date());
    let signed = 0;
    for (const head of await this.deps.readModels.tree.heads()) {
      const size = head.frontier.size;
      if (size <= Math.max(head.checkpoint_size, this.sealed.get(head.project_id) ?? 0)) continue;
      const text = checkpointText(checkpointOrigin(this.deps.logOrigin, head.project_id), size, head.root);
      const note = this.deps.signer.sign(text);
      await recordCheckpoint(
        this.deps.log,
        { project_id: head.project_id, size, root: head.root.toString('base64'), note },
        {
          actor: 'system:checkpoints',
          correlationId: head.project_id,
          now,
        },
      );
      this.sealed.set(head.project_id, size);
      signed += 1;
      await this.witness(note, head.project_id, size);
    }
    return signed;
  }

  /** A witness that fails is logged; the next checkpoint, which supersedes this one, is sent anyway. */
  private async witness(note: string, projectId: string, size: number): Promise<void> {
    const { url, file } = this.deps.witnesses;
    const log = this.deps.logger.child({ project_id: projectId, size });
    if (file !== undefined) {
      await appendFile(file, `${note}\n`).catch((err: unknown) =>
        log.warn({ err, file }, 'checkpoint not written to the witness file'),
      );
    }
    if (url !== undefined) {
      try {
        const res = await got.post(url, {
          body: note,
          headers: { 'content-type': 'text/plain; charset=utf-8', 'user-agent': 'watchlog-checkpoints/0.1' },
          agent: this.deps.egress.agent,
          throwHttpErrors: false,
          followRedirect: false,
          retry: { limit: 0 },
          timeout: { request: 5000 },
        });
        if (res.statusCode < 200 || res.statusCode >= 300)
          log.warn({ url, status: res.statusCode }, 'the witness refused a checkpoint');
      } catch (error) {
        log.warn({ url, error: refusalOf(error) ?? String(error) }, 'checkpoint not sent to the witness');
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.deps.leases.release(SEALER, this.holder).catch(() => undefined);
  }
}
