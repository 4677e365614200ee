import { egressPolicy } from '../../src/checks/egress.ts';
import { loadConfig } from '../../src/config.ts';

/** The egress policy of a deployment with the default rules (loopback allowed), for tests that
 *  call a probe or a delivery directly. */
export const defaultEgress = egressPolicy(loadConfig({}).egress);
