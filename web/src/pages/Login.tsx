import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { call } from '../api.ts';
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
  const providers = useQuery({ queryKey: ['sso-providers'], queryFn: () => call('GET /v1/auth/oidc/providers') });
  const ssoError = search.get('sso_error');
  const next = search.get('next') ?? '/projects';

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
