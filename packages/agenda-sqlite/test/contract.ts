import type { AgendaBackend } from 'agenda';
import { extensionTests } from './contract/extensions.ts';
import { type AgendaBackendContractOptions, contractSuite, type OpenedBackend } from './contract/harness.ts';
import { lockingTests } from './contract/locking.ts';
import { queryingTests } from './contract/querying.ts';
import { savingTests } from './contract/saving.ts';

export type { AgendaBackendContractOptions, OpenedBackend, ScheduleChanges } from './contract/harness.ts';

/** Agenda's storage contract (the JobRepository semantics of the official MongoDB backend), for every backend. */
export const agendaBackendContract = <B extends AgendaBackend>(
  adapter: string,
  open: () => Promise<OpenedBackend<B>>,
  options: AgendaBackendContractOptions<B> = {},
): void => {
  const suite = contractSuite(adapter, open);
  savingTests(suite);
  lockingTests(suite);
  queryingTests(suite);
  extensionTests(suite, options);
};
