import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';

/** A real OpenID Provider (oidc-provider) on 127.0.0.1, with its development login form (any
 *  password) and consent page, one confidential client, and accounts by login name. */

export interface Account {
  email: string;
  email_verified?: boolean;
  groups?: string[];
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export const startIdp = async (redirectUris: string[], accounts: Record<string, Account>): Promise<TestIdp> => {
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'watchlog';
  const clientSecret = 'a client secret of the test provider';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['groups'] },
    // The claims of the scopes asked go into the ID token, where watchlog reads them.
    conformIdTokenClaims: false,
    cookies: { keys: ['a cookie key of the test provider'] },
    findAccount: (_ctx: unknown, sub: string) => {
      const account = accounts[sub];
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email_verified: true, ...account }),
      };
    },
  });
  // Development interactions and keys are what this provider is for; its warnings are noise here.
  provider.on('server_error', () => undefined);
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
