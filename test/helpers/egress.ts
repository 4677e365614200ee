import { egressPolicy, type Resolver } from '../../src/checks/egress.ts';
import { loadConfig } from '../../src/config.ts';

/** The tests' DNS: `localhost` is 127.0.0.1, and every other name is unknown, as the system's
 *  resolver says of a name that does not exist. Never the system's: a test never leaves
 *  loopback, not even for a lookup (a provider's default URL, a saved example.com webhook). */
export const loopbackResolver: Resolver = async (hostname) => {
  if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
};

/** The egress policy of a deployment with the default rules (loopback allowed), for tests that
 *  call a probe or a delivery directly; names resolve through `loopbackResolver`. */
export const defaultEgress = egressPolicy(loadConfig({}).egress, { resolve: loopbackResolver });
