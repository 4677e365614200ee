import { matching, optional, stringMin } from './config-codecs.ts';

/** WATCHLOG_WEBAUTHN_*: who passkeys are registered for (docs/security.md#passkeys). A passkey
 *  belongs to its relying party's id (a domain), and the server takes answers only from the
 *  origins listed: a page elsewhere cannot use a watchlog passkey. */

export const WEBAUTHN_ENV = {
  WATCHLOG_WEBAUTHN_RP_ID: optional(matching('a domain name, e.g. watchlog.example.com', /^[a-z0-9.-]{1,253}$/i)),
  WATCHLOG_WEBAUTHN_RP_NAME: optional(stringMin('a name', 1)),
  WATCHLOG_WEBAUTHN_ORIGINS: optional(
    matching('comma-separated http(s) origins', /^https?:\/\/[^\s/,]+(,\s*https?:\/\/[^\s/,]+)*$/),
  ),
};

export interface RelyingPartyConfig {
  id: string;
  name: string;
  origins: string[];
}

/** Unset, they follow WATCHLOG_PUBLIC_URL (its host, its origin), else the dashboard on
 *  localhost at the API's port. */
export const relyingPartyOf = (
  e: { WATCHLOG_WEBAUTHN_RP_ID?: string; WATCHLOG_WEBAUTHN_RP_NAME?: string; WATCHLOG_WEBAUTHN_ORIGINS?: string },
  publicUrl: string | undefined,
  port: number,
): RelyingPartyConfig => {
  const base = publicUrl ? new URL(publicUrl) : null;
  return {
    id: e.WATCHLOG_WEBAUTHN_RP_ID ?? base?.hostname ?? 'localhost',
    name: e.WATCHLOG_WEBAUTHN_RP_NAME ?? 'watchlog',
    origins: e.WATCHLOG_WEBAUTHN_ORIGINS?.split(',').map((o) => o.trim()) ?? [
      base?.origin ?? `http://localhost:${port}`,
    ],
  };
};
