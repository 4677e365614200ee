import { useState, type FormEvent } from 'react';
import { useSession } from '../auth.tsx';
import { ErrorNote } from '../components/ui.tsx';
import { navigate, useLocation } from '../router.tsx';

export const Login = () => {
  const { login, endedBecause } = useSession();
  const { search } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(email, password);
      const next = search.get('next');
      navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/projects', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

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
          autoComplete="username"
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
      </form>
    </main>
  );
};
