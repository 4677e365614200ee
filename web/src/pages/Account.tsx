import { useState, type FormEvent } from 'react';
import { ApiError, call } from '../api.ts';
import { useSession } from '../auth.tsx';
import { ErrorNote, Field } from '../components/ui.tsx';
import { navigate } from '../router.tsx';
import { SignInSessions } from './account/SignInSessions.tsx';

/** Change your own password (the server then refuses every older token, this one included); see
 *  and end your sessions. */
export const Account = () => {
  const { user, logout } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [error, setError] = useState<unknown>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (user === undefined) return;
    setError(null);
    try {
      await call('POST /v1/users/:id/password', {
        params: { id: user.id },
        body: { password: next, current_password: current },
      });
      logout('Password changed. Sign in with the new one.');
      navigate('/login');
    } catch (err) {
      setError(err);
    }
  };
  const fieldError = (path: string) => (error instanceof ApiError ? error.fieldMessage(path) : undefined);

  return (
    <section>
      <h1>Your account</h1>
      <p>
        Signed in as <strong>{user?.email}</strong> ({user?.role}).
      </p>
      <form onSubmit={submit} aria-label="Change password" className="stack narrow">
        <h2>Change password</h2>
        <Field id="current-password" label="Current password" error={fieldError('current_password')}>
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </Field>
        <Field id="new-password" label="New password" hint="8 to 1024 characters" error={fieldError('password')}>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={1024}
            value={next}
            onChange={(e) => setNext(e.target.value)}
          />
        </Field>
        <ErrorNote error={error} />
        <button type="submit">Change password</button>
      </form>
      <SignInSessions />
    </section>
  );
};
