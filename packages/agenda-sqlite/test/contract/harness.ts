import test, { type ExecutionContext } from 'ava';
import { Agenda, type AgendaBackend, type AgendaOptions, type JobParameters, type JobRepository } from 'agenda';

/** What a test file hands the contract: a fresh, not yet connected backend on empty storage. */
export interface OpenedBackend<B extends AgendaBackend> {
  backend: B;
  /** Stops using the storage and removes it; runs after every Agenda of the test was stopped. */
  cleanup: () => Promise<void>;
  /** Another backend on the same storage, as a second process would have it; cleanup closes it. */
  openSecond?: () => Promise<AgendaBackend>;
}

/** When a job runs and whether it may; never who holds it. */
export interface ScheduleChanges {
  repeatInterval?: number;
  nextRunAt?: Date;
  disabled?: boolean;
}

export interface AgendaBackendContractOptions<B extends AgendaBackend> {
  /** The adapter's database-enforced "one `name` job per data.<dataPath> value", where it has one. */
  ensureUniqueIndex?: (backend: B, name: string, dataPath: string) => Promise<void>;
  /** The adapter's change of a stored job's schedule that leaves its lock alone (Agenda's saves
   *  reset it), where it has one; resolves false when no job has that id. */
  updateSchedule?: (backend: B, id: string, changes: ScheduleChanges) => Promise<boolean>;
}

type AgendaSettings = Omit<Partial<AgendaOptions>, 'backend'>;

export interface Harness {
  backend: AgendaBackend;
  repo: JobRepository;
  /** An Agenda on the backend (or on `on`), polling every 100 ms, locks living 1 s; stopped by
   *  the harness after the test. Each Agenda needs a backend of its own: stop() may close it. */
  agenda: (options?: AgendaSettings, on?: AgendaBackend) => Agenda;
  /** Another connected backend on the same storage, as another process has it, or the same one. */
  otherBackend: () => Promise<AgendaBackend>;
  /** The repository of another connected backend on the same storage, or the same one. */
  otherRepo: () => Promise<JobRepository>;
}

/** How the groups of contract tests register theirs for one adapter: titled with its name, each on new storage. */
export interface ContractSuite<B extends AgendaBackend> {
  title: (name: string) => string;
  withBackend: (
    name: string,
    body: (t: ExecutionContext, h: Harness, opened: OpenedBackend<B>) => Promise<void>,
  ) => void;
}

export const contractSuite = <B extends AgendaBackend>(
  adapter: string,
  open: () => Promise<OpenedBackend<B>>,
): ContractSuite<B> => {
  const title = (name: string) => `${adapter} agenda backend: ${name}`;
  const withBackend = (
    name: string,
    body: (t: ExecutionContext, h: Harness, opened: OpenedBackend<B>) => Promise<void>,
  ) =>
    test(title(name), async (t) => {
      const opened = await open();
      const agendas: Agenda[] = [];
      try {
        const { backend } = opened;
        await backend.connect();
        const otherBackend = async (): Promise<AgendaBackend> => {
          if (!opened.openSecond) return backend;
          const other = await opened.openSecond();
          await other.connect();
          return other;
        };
        await body(
          t,
          {
            backend,
            repo: backend.repository,
            agenda: (agendaOptions = {}, on = backend) => {
              // Agenda watches each running job with a timer of lockLifetime / 2 that stop() does not
              // clear: with the default 10 minutes, the test process would not exit for 5 minutes.
              const agenda = new Agenda({
                processEvery: 100,
                defaultLockLifetime: 1_000,
                ...agendaOptions,
                backend: on,
              });
              agendas.push(agenda);
              return agenda;
            },
            otherBackend,
            otherRepo: async () => (await otherBackend()).repository,
          },
          opened,
        );
      } finally {
        for (const agenda of agendas) await agenda.stop();
        await opened.cleanup();
      }
    });
  return { title, withBackend };
};

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls instead of sleeping for a fixed time: fast when the machine is, patient when it is loaded. */
export const until = async (
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
};

/** A date `offsetMs` from now. */
export const at = (offsetMs: number) => new Date(Date.now() + offsetMs);

export const job = (name: string, fields: Partial<JobParameters> = {}): JobParameters => ({
  name,
  priority: 0,
  nextRunAt: new Date(),
  type: 'normal',
  data: {},
  ...fields,
});

export const idOf = (saved: JobParameters | null | undefined): string => {
  if (!saved?._id) throw new Error('job without an id');
  return String(saved._id);
};
