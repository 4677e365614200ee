import type { Configuration } from 'openid-client';
import { egressFetch } from '../../checks/egress-fetch.ts';
import type { EgressPolicy } from '../../checks/egress.ts';
import type { Provider } from '../../domain/sso.ts';

/** Loaded on first use, by the first single sign-on: about 1.3 MB of heap and 8 MB of RSS that a
 *  server without a provider should not carry. */
export const openidClient = () => import('openid-client');

/** How long a provider's discovery document (its endpoints and keys' address) is kept. */
const DISCOVERY_TTL_MS = 10 * 60_000;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** openid-client's configuration of each provider, from its discovery document, fetched through
 *  the egress policy and kept a while (a changed issuer, client id or secret fetches it anew).
 *  Plain HTTP is taken from a provider on this machine only (a provider in a test, a local
 *  Keycloak); anywhere else the issuer must be HTTPS. */
export class SsoClients {
  private readonly cache = new Map<string, { key: string; at: number; config: Promise<Configuration> }>();
  private readonly fetch;

  constructor(
    egress: EgressPolicy,
    private readonly now: () => number = Date.now,
  ) {
    this.fetch = egressFetch(egress);
  }

  config(provider: Provider): Promise<Configuration> {
    const key = JSON.stringify([provider.issuer, provider.client_id, provider.client_secret]);
    const cached = this.cache.get(provider.id);
    if (cached && cached.key === key && this.now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    const issuer = new URL(provider.issuer);
    const insecure = issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname);
    if (issuer.protocol !== 'https:' && !insecure)
      return Promise.reject(new Error(`issuer ${provider.issuer} is not HTTPS`));
    const config = openidClient().then(async (client) => {
      const c = await client.discovery(issuer, provider.client_id, provider.client_secret, undefined, {
        [client.customFetch]: this.fetch,
        // The ID token's signature is checked against the provider's keys too: openid-client
        // otherwise trusts the TLS channel of the token endpoint alone (OIDC Core 3.1.3.7).
        execute: insecure
          ? [client.allowInsecureRequests, client.enableNonRepudiationChecks]
          : [client.enableNonRepudiationChecks],
      });
      c[client.customFetch] = this.fetch;
      return c;
    });
    // A failed discovery is not kept: the next sign-in asks again.
    config.catch(() => this.cache.delete(provider.id));
    this.cache.set(provider.id, { key, at: this.now(), config });
    return config;
  }
}
