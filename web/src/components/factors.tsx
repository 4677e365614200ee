import { useState, type FormEvent } from 'react';
import { ApiError, type Answer, call } from '../api.ts';
import { useSession } from '../auth.tsx';
import { registerPasskey } from '../passkeys.ts';
import { ErrorNote, Field } from './ui.tsx';

/** Enrolling a second factor: on the security page, and on the login page for a user the
 *  policy sends to enrol (the calls then carry the enrolment token). */

type Enrolled = Answer<'POST /v1/auth/factors/totp/confirm'>;

/** An error of a change to the factors; when the server asks for a newer sign-in (a session may
 *  change them for 10 minutes after it signed in), a button that signs out, back to this page. */
export const FactorError = ({ error }: { error: unknown }) => {
  const { logout } = useSession();
  return (
    <>
      <ErrorNote error={error} />
      {error instanceof ApiError && error.code === 'reauthentication_required' && (
        <button type="button" onClick={() => logout()}>
          Sign in again
        </button>
      )}
    </>
  );
};

/** Recovery codes, shown once: the server keeps only their hashes. */
export const RecoveryCodes = ({ codes }: { codes: readonly string[] }) => (
  <section className="recovery-codes" aria-label="Recovery codes">
    <p>
      Keep these recovery codes somewhere safe: each signs in once when your app or passkey is not at hand. They are not
      shown again.
    </p>
    <ol>
      {codes.map((code) => (
        <li key={code}>
          <code>{code}</code>
        </li>
      ))}
    </ol>
  </section>
);

/** The QR code of a new secret, the secret for typing, and the first code that confirms it. */
export const TotpSetup = ({ onEnrolled }: { onEnrolled: (answer: Enrolled) => void }) => {
  const [setup, setSetup] = useState<Answer<'POST /v1/auth/factors/totp'> | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);

  const start = async () => {
    setError(null);
    try {
      setSetup(await call('POST /v1/auth/factors/totp'));
    } catch (err) {
      setError(err);
    }
  };
  const confirm = async (e: FormEvent) => {
    e.preventDefault();
    if (setup === null) return;
    setError(null);
    try {
      onEnrolled(await call('POST /v1/auth/factors/totp/confirm', { body: { setup_token: setup.setup_token, code } }));
      setSetup(null);
      setCode('');
    } catch (err) {
      setError(err);
    }
  };

  if (setup === null)
    return (
      <div>
        <button type="button" onClick={start}>
          Set up an authenticator app
        </button>
        <FactorError error={error} />
      </div>
    );
  return (
    <form onSubmit={confirm} aria-label="Confirm authenticator app" className="stack narrow">
      <p>Scan this code with your authenticator app, or type the key, then enter the code it shows.</p>
      <img src={setup.qr_code} alt="QR code of the key for your authenticator app" width={200} height={200} />
      <p>
        Key: <code data-testid="totp-secret">{setup.secret}</code>
      </p>
      <Field id="totp-first-code" label="Code from the app">
        <input
          id="totp-first-code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          required
          value={code}
          onChange={(e) => setCode(e.target.value.trim())}
        />
      </Field>
      <FactorError error={error} />
      <button type="submit">Confirm</button>
    </form>
  );
};

/** Registers a passkey of this device (or a security key) under a name. */
export const AddPasskey = ({ onAdded }: { onAdded: (answer: Answer<'POST /v1/auth/factors/passkeys'>) => void }) => {
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const add = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      onAdded(await registerPasskey(name));
      setName('');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={add} aria-label="Add a passkey" className="stack narrow">
      <Field id="passkey-name" label="Passkey name" hint="e.g. work laptop">
        <input id="passkey-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <FactorError error={error} />
      <button type="submit" disabled={busy}>
        Add a passkey
      </button>
    </form>
  );
};
