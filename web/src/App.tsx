import { useEffect, type ReactNode } from 'react';
import { useSession } from './auth.tsx';
import { Layout } from './components/Layout.tsx';
import { match, navigate, useLocation } from './router.tsx';
import { Account } from './pages/Account.tsx';
import { Security } from './pages/Security.tsx';
import { Anomalies } from './pages/Anomalies.tsx';
import { EventDetail } from './pages/EventDetail.tsx';
import { Events } from './pages/Events.tsx';
import { Incidents } from './pages/Incidents.tsx';
import { IncidentDetail } from './pages/incidents/IncidentDetail.tsx';
import { ExplicitSession } from './pages/ExplicitSession.tsx';
import { Login } from './pages/Login.tsx';
import { Maintenance } from './pages/Maintenance.tsx';
import { Monitors } from './pages/Monitors.tsx';
import { Orphans } from './pages/Orphans.tsx';
import { Overview } from './pages/Overview.tsx';
import { Projects } from './pages/Projects.tsx';
import { Sessions } from './pages/Sessions.tsx';
import { Settings } from './pages/Settings.tsx';
import { StatusPages } from './pages/StatusPages.tsx';
import { NewStatusPage, StatusPageScreen } from './pages/status-pages/StatusPageEditor.tsx';
import { Users } from './pages/Users.tsx';

type Params = Record<string, string>;

/** Every screen is a URL. Project screens live under /p/:projectId so links can be shared. */
const ROUTES: Array<{ pattern: string; title: string; render: (p: Params) => ReactNode }> = [
  { pattern: '/projects', title: 'All projects', render: () => <Projects /> },
  { pattern: '/account', title: 'Your account', render: () => <Account /> },
  { pattern: '/security', title: 'Sign-in security', render: () => <Security /> },
  { pattern: '/users', title: 'Users and roles', render: () => <Users /> },
  { pattern: '/p/:projectId', title: 'Overview', render: (p) => <Overview projectId={p.projectId!} /> },
  { pattern: '/p/:projectId/events', title: 'Events', render: (p) => <Events projectId={p.projectId!} /> },
  {
    pattern: '/p/:projectId/events/:eventId',
    title: 'Event',
    render: (p) => <EventDetail projectId={p.projectId!} eventId={p.eventId!} />,
  },
  { pattern: '/p/:projectId/sessions', title: 'Sessions', render: (p) => <Sessions projectId={p.projectId!} /> },
  {
    pattern: '/p/:projectId/sessions/:sessionId',
    title: 'Session',
    render: (p) => <ExplicitSession projectId={p.projectId!} sessionId={p.sessionId!} />,
  },
  { pattern: '/p/:projectId/anomalies', title: 'Anomalies', render: (p) => <Anomalies projectId={p.projectId!} /> },
  { pattern: '/p/:projectId/orphans', title: 'Orphans', render: (p) => <Orphans projectId={p.projectId!} /> },
  { pattern: '/p/:projectId/monitors', title: 'Monitors', render: (p) => <Monitors projectId={p.projectId!} /> },
  {
    pattern: '/p/:projectId/status-pages',
    title: 'Status pages',
    render: (p) => <StatusPages projectId={p.projectId!} />,
  },
  {
    pattern: '/p/:projectId/status-pages/new',
    title: 'New status page',
    render: (p) => <NewStatusPage projectId={p.projectId!} />,
  },
  {
    pattern: '/p/:projectId/status-pages/:pageId',
    title: 'Status page',
    render: (p) => <StatusPageScreen projectId={p.projectId!} pageId={p.pageId!} />,
  },
  { pattern: '/p/:projectId/incidents', title: 'Incidents', render: (p) => <Incidents projectId={p.projectId!} /> },
  {
    pattern: '/p/:projectId/incidents/:incidentId',
    title: 'Incident',
    render: (p) => <IncidentDetail projectId={p.projectId!} incidentId={p.incidentId!} />,
  },
  {
    pattern: '/p/:projectId/maintenance',
    title: 'Maintenance',
    render: (p) => <Maintenance projectId={p.projectId!} />,
  },
  { pattern: '/p/:projectId/settings', title: 'Settings', render: (p) => <Settings projectId={p.projectId!} /> },
];

const Redirect = ({ to }: { to: string }) => {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
};

export const App = () => {
  const { token, ready } = useSession();
  const { path, search } = useLocation();
  const route = ROUTES.map((r) => ({ r, params: match(r.pattern, path) })).find((x) => x.params !== null);

  useEffect(() => {
    document.title = route ? `${route.r.title} · watchlog` : 'watchlog';
  }, [route]);

  // Until the refresh cookie has been asked, neither the sign-in form nor a screen.
  if (!ready) return <p className="muted">Loading…</p>;
  if (path === '/login') return token === null ? <Login /> : <Redirect to={search.get('next') ?? '/projects'} />;
  if (token === null)
    return <Redirect to={`/login?next=${encodeURIComponent(path + (search.size > 0 ? `?${search}` : ''))}`} />;
  if (path === '/' || path === '') return <Redirect to="/projects" />;
  if (route === undefined) {
    return (
      <Layout>
        <section>
          <h1>Not found</h1>
          <p>
            No screen at <code>{path}</code>. <a href="/projects">All projects</a>
          </p>
        </section>
      </Layout>
    );
  }
  return <Layout projectId={route.params!.projectId}>{route.r.render(route.params!)}</Layout>;
};
