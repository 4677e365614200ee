import { judge } from '../domain/check-judge.ts';
import type { CheckResult } from '../domain/monitor.ts';
import { observeDns } from './dns-probe.ts';
import type { EgressPolicy } from './egress.ts';
import { observeHttp, type CheckTarget } from './http-probe.ts';
import type { Observed } from './observed.ts';
import { observeTcp } from './tcp-probe.ts';

export type { CheckTarget } from './http-probe.ts';

/** One check of a monitor, by its kind (`type`, http by default): the probe observes (an HTTP
 *  request, a TCP connection, a DNS question), and check-judge.ts's `judge` makes the result.
 *  Every connection goes through the egress policy; `refused` says whether it refused the check
 *  (for metrics). Heartbeat monitors are not probed (their beats arrive): asking throws. */
export const probe = async (
  target: CheckTarget,
  egress: EgressPolicy,
  now: () => Date = () => new Date(),
): Promise<{ result: CheckResult; refused: boolean }> => {
  const type = target.type ?? 'http';
  let observed: Observed;
  switch (type) {
    case 'http':
      observed = await observeHttp(target, egress, now);
      break;
    case 'tcp':
      observed = await observeTcp(target, egress, now);
      break;
    case 'dns':
      observed = await observeDns(target, egress, now);
      break;
    case 'heartbeat':
      throw new Error('heartbeat monitors are not probed: their beats are their checks');
  }
  return { result: judge(target, observed.observation), refused: observed.refused };
};

/** `probe`'s result alone (SPEC 4.10's check, and the check on demand). */
export const runCheck = async (
  target: CheckTarget,
  egress: EgressPolicy,
  now: () => Date = () => new Date(),
): Promise<CheckResult> => (await probe(target, egress, now)).result;
