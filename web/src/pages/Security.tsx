import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../api.ts';
import { useSession } from '../auth.tsx';
import { AddPasskey, FactorError, RecoveryCodes, TotpSetup } from '../components/factors.tsx';
import { ErrorNote, Loading } from '../components/ui.tsx';
import { formatTime } from '../format.ts';
import { SingleSignOn } from './security/SingleSignOn.tsx';

/** Your second factors: an authenticator app, recovery codes, passkeys; and, for admins, who must
 *  have one and the single sign-on providers. */
export const Security = () => {
  const { user } = useSession();
  const client = useQueryClient();
  const factors = useQuery({ queryKey: ['factors'], queryFn: () => call('GET /v1/auth/factors') });
  const [codes, setCodes] = useState<readonly string[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const refresh = () => client.invalidateQueries({ queryKey: ['factors'] });
  const act = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
      await refresh();
    } catch (err) {
      setError(err);
    }
  };

  if (factors.data === undefined)
    return factors.error ? <ErrorNote error={factors.error} /> : <Loading what="your second factors" />;
  const f = factors.data;
  return (
    <section>
      <h1>Sign-in security</h1>
      {f.required && <p className="notice">Your account must keep a second factor.</p>}
      <FactorError error={error} />
      {codes !== null && <RecoveryCodes codes={codes} />}

      <h2>Authenticator app</h2>
      {f.totp_enrolled_at === null ? (
        <TotpSetup
          onEnrolled={async (answer) => {
            if (answer.recovery_codes !== null) setCodes(answer.recovery_codes);
            await refresh();
          }}
        />
      ) : (
        <p>
          Enrolled {formatTime(f.totp_enrolled_at)}.{' '}
          <button type="button" onClick={() => act(() => call('DELETE /v1/auth/factors/totp'))}>
            Remove the authenticator app
          </button>
        </p>
      )}

      <h2>Recovery codes</h2>
      <p>
        <span data-testid="recovery-left">{f.recovery_codes_left}</span> left
        {f.recovery_codes_generated_at !== null && <> (made {formatTime(f.recovery_codes_generated_at)})</>}.{' '}
        <button
          type="button"
          onClick={() => act(async () => setCodes((await call('POST /v1/auth/factors/recovery-codes')).recovery_codes))}
        >
          New recovery codes
        </button>
      </p>

      <h2>Passkeys</h2>
      {f.passkeys.length === 0 ? (
        <p>No passkeys yet.</p>
      ) : (
        <ul className="passkeys" aria-label="Passkeys">
          {f.passkeys.map((p) => (
            <li key={p.id}>
              <strong>{p.name}</strong>{' '}
              <span className="muted">
                added {formatTime(p.created_at)}
                {p.last_used_at !== null && <>, last used {formatTime(p.last_used_at)}</>}
              </span>{' '}
              <button
                type="button"
                onClick={() => {
                  const name = window.prompt('New name', p.name);
                  if (name)
                    void act(() =>
                      call('PUT /v1/auth/factors/passkeys/:passkeyId', { params: { passkeyId: p.id }, body: { name } }),
                    );
                }}
              >
                Rename {p.name}
              </button>{' '}
              <button
                type="button"
                onClick={() =>
                  act(() => call('DELETE /v1/auth/factors/passkeys/:passkeyId', { params: { passkeyId: p.id } }))
                }
              >
                Remove {p.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <AddPasskey
        onAdded={async (answer) => {
          if (answer.recovery_codes !== null) setCodes(answer.recovery_codes);
          await refresh();
        }}
      />
      {user?.role === 'admin' && (
        <>
          <Policy />
          <SingleSignOn />
        </>
      )}
    </section>
  );
};

/** Who must have a second factor (admins only). */
const Policy = () => {
  const client = useQueryClient();
  const policy = useQuery({
    queryKey: ['second-factor-policy'],
    queryFn: () => call('GET /v1/settings/second-factor'),
  });
  const [error, setError] = useState<unknown>(null);
  if (policy.data === undefined) return <Loading what="the second-factor policy" />;
  return (
    <>
      <h2>Second-factor policy</h2>
      <label htmlFor="second-factor-policy">Who must have a second factor</label>{' '}
      <select
        id="second-factor-policy"
        value={policy.data.require}
        onChange={async (e) => {
          setError(null);
          try {
            const require = e.target.value as 'none' | 'admins' | 'everyone';
            client.setQueryData(
              ['second-factor-policy'],
              await call('PUT /v1/settings/second-factor', { body: { require } }),
            );
          } catch (err) {
            setError(err);
          }
        }}
      >
        <option value="none">Nobody</option>
        <option value="admins">Admins</option>
        <option value="everyone">Everyone</option>
      </select>
      <ErrorNote error={error} />
    </>
  );
};
