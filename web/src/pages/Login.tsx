import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { type LoginStep, useSession } from '../auth.tsx';
import { call } from '../api.ts';
import { AddPasskey, RecoveryCodes, TotpSetup } from '../components/factors.tsx';
import { ErrorNote } from '../components/ui.tsx';
import { signInWithPasskey } from '../passkeys.ts';
import { navigate, useLocation } from '../router.tsx';

type Pending = Exclude<LoginStep, { token: string }>;

/** The password, then what the server asks next: a second factor, or (when the policy wants one
 *  this user lacks) enrolling one, which finishes the sign-in. A passkey signs in alone. */
export const Login = () => {
  const { login, signedIn, enrolWith, endedBecause } = useSession();
  const { search } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [pending, setPending] = useState<Pending | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const providers = useQuery({ queryKey: ['sso-providers'], queryFn: () => call('GET /v1/auth/oidc/providers') });
  const ssoError = search.get('sso_error');
  const next = search.get('next') ?? '/projects';

  const onward = () => {
    const next = search.get('next');
    navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/projects', { replace: true });
  };
  const attempt = async (step: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    return attempt(async () => {
      const step = await login(email, password);
      if ('token' in step) return onward();
      if ('enrolment_required' in step) enrolWith(step.enrolment_token);
      setPending(step);
    });
  };
  const withPasskey = (challengeToken?: string) =>
    attempt(async () => {
      signedIn(await signInWithPasskey(challengeToken));
      onward();
    });

  if (pending !== null && 'second_factor_required' in pending)
    return (
      <main className="login">
        <h1>watchlog</h1>
        <SecondFactor
          challenge={pending.challenge_token}
          methods={pending.methods}
          onSignedIn={(answer) => {
            signedIn(answer);
            onward();
          }}
          onPasskey={() => withPasskey(pending.challenge_token)}
        />
        <ErrorNote error={error} />
      </main>
    );
  if (pending !== null)
    return (
      <main className="login">
        <h1>watchlog</h1>
        <Enrol onSignedIn={signedIn} onDone={onward} />
      </main>
    );

  return (
    <main className="login">
      <h1>watchlog</h1>
      <form onSubmit={submit} aria-label="Sign in">
        {endedBecause !== null && (
          <p className="notice" role="status">
            {endedBecause}
          </p>
        )}
        <label htmlFor="email">E-mail</label>
        <input
          id="email"
          type="email"
          autoComplete="username webauthn"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          // biome-ignore lint/a11y/noAutofocus: the page is there to sign in: typing starts in its first field
          autoFocus
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => withPasskey()}>
          Use a passkey
        </button>
      </form>
      {ssoError !== null && (
        <p className="error" role="alert">
          Single sign-on refused: {ssoError}
        </p>
      )}
      {(providers.data ?? []).length > 0 && (
        <nav aria-label="Single sign-on" className="stack">
          {(providers.data ?? []).map((p) => (
            // A full page load: the server redirects to the provider.
            <a
              key={p.id}
              className="button"
              href={`/v1/auth/oidc/${encodeURIComponent(p.id)}/start?next=${encodeURIComponent(next)}`}
            >
              Sign in with {p.name}
            </a>
          ))}
        </nav>
      )}
    </main>
  );
};

type Signed = Parameters<ReturnType<typeof useSession>['signedIn']>[0];

/** A TOTP code, a recovery code or a passkey, after the password. */
const SecondFactor = ({
  challenge,
  methods,
  onSignedIn,
  onPasskey,
}: {
  challenge: string;
  methods: readonly string[];
  onSignedIn: (answer: Signed) => void;
  onPasskey: () => void;
}) => {
  const [recovery, setRecovery] = useState(!methods.includes('totp') && methods.includes('recovery_code'));
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const body = recovery
        ? { challenge_token: challenge, recovery_code: code }
        : { challenge_token: challenge, totp_code: code };
      onSignedIn(await call('POST /v1/auth/second-factor', { body }));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Second factor">
      <p>Your account has a second factor.</p>
      {(methods.includes('totp') || recovery) && (
        <>
          <label htmlFor="factor-code">{recovery ? 'Recovery code' : 'Code from your authenticator app'}</label>
          <input
            id="factor-code"
            autoComplete="one-time-code"
            inputMode={recovery ? 'text' : 'numeric'}
            required
            value={code}
            onChange={(e) => setCode(e.target.value.trim())}
            // biome-ignore lint/a11y/noAutofocus: the step is there to type the code
            autoFocus
          />
          <ErrorNote error={error} />
          <button type="submit">Verify</button>
        </>
      )}
      {methods.includes('recovery_code') && (
        <button type="button" className="secondary" onClick={() => setRecovery(!recovery)}>
          {recovery ? 'Use the authenticator app' : 'Use a recovery code'}
        </button>
      )}
      {methods.includes('passkey') && (
        <button type="button" className="secondary" onClick={onPasskey}>
          Use a passkey
        </button>
      )}
    </form>
  );
};

/** The policy wants a second factor first: enrolling one finishes the sign-in, after the user has
 *  seen their recovery codes. */
const Enrol = ({ onSignedIn, onDone }: { onSignedIn: (answer: Signed) => void; onDone: () => void }) => {
  const [done, setDone] = useState<{ codes: readonly string[] | null; signIn: Signed | null } | null>(null);
  const enrolled = (answer: { recovery_codes: string[] | null; sign_in: Signed | null }) =>
    setDone({ codes: answer.recovery_codes, signIn: answer.sign_in });
  if (done !== null)
    return (
      <div>
        {done.codes !== null && <RecoveryCodes codes={done.codes} />}
        <button
          type="button"
          onClick={() => {
            if (done.signIn !== null) onSignedIn(done.signIn);
            onDone();
          }}
        >
          Continue
        </button>
      </div>
    );
  return (
    <section aria-label="Enrol a second factor">
      <p>Your organisation requires a second factor. Set one up to finish signing in.</p>
      <TotpSetup onEnrolled={enrolled} />
      <AddPasskey onAdded={enrolled} />
    </section>
  );
};
