import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useSession } from '../auth.tsx';
import { useProjects } from '../hooks.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { DownBanner } from './DownBanner.tsx';

const PROJECT_TABS: Array<[string, string]> = [
  ['', 'Overview'],
  ['/events', 'Events'],
  ['/sessions', 'Sessions'],
  ['/anomalies', 'Anomalies'],
  ['/orphans', 'Orphans'],
  ['/monitors', 'Monitors'],
  ['/status-pages', 'Status pages'],
  ['/incidents', 'Incidents'],
  ['/maintenance', 'Maintenance'],
  ['/settings', 'Settings'],
];

const UserMenu = () => {
  const { user, logout } = useSession();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent | KeyboardEvent) => {
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !ref.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);
  return (
    <div className="user-menu" ref={ref}>
      <button type="button" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        {user?.email ?? 'Account'} <span className="muted">({user?.role ?? '…'})</span>
      </button>
      {open && (
        <div role="menu" className="menu">
          <Link role="menuitem" to="/account" onClick={() => setOpen(false)}>
            Account and sessions
          </Link>
          <Link role="menuitem" to="/security" onClick={() => setOpen(false)}>
            Sign-in security
          </Link>
          {user?.role === 'admin' && (
            <Link role="menuitem" to="/users" onClick={() => setOpen(false)}>
              Users and roles
            </Link>
          )}
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              logout();
              navigate('/login');
            }}
          >
            Log out
          </button>
        </div>
      )}
    </div>
  );
};

/** The frame of every signed-in screen: header, DOWN banner, project navigation, content. */
export const Layout = ({ projectId, children }: { projectId?: string; children: ReactNode }) => {
  const { path } = useLocation();
  const projects = useProjects();
  const base = projectId === undefined ? undefined : `/p/${projectId}`;
  return (
    <>
      <header className="top">
        <Link to="/projects" className="brand" aria-label="watchlog: all projects">
          watchlog
        </Link>
        <nav aria-label="Main">
          <Link to="/projects" aria-current={path === '/projects' ? 'page' : undefined}>
            All projects
          </Link>
          <label className="project-picker">
            <span className="visually-hidden">Project</span>
            <select
              aria-label="Project"
              value={projectId ?? ''}
              onChange={(e) => {
                const rest = base !== undefined ? path.slice(base.length).split('/').slice(0, 2).join('/') : '';
                navigate(`/p/${e.target.value}${rest}`);
              }}
            >
              {projectId === undefined && <option value="">Choose a project…</option>}
              {(projects.data ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        </nav>
        <UserMenu />
      </header>
      <DownBanner />
      {base !== undefined && (
        <nav className="tabs" aria-label="Project">
          {PROJECT_TABS.map(([suffix, label]) => {
            const to = `${base}${suffix}`;
            const current = suffix === '' ? path === base : path === to || path.startsWith(`${to}/`);
            return (
              <Link key={label} to={to} aria-current={current ? 'page' : undefined}>
                {label}
              </Link>
            );
          })}
        </nav>
      )}
      <main>{children}</main>
    </>
  );
};
