import { useState, type FormEvent } from 'react';
import { useMutation, useQueries, useQueryClient } from '@tanstack/react-query';
import { ApiError, call, type Monitor, type Project } from '../api.ts';
import { useSession } from '../auth.tsx';
import { Empty, ErrorNote, Field, Loading } from '../components/ui.tsx';
import { ago, formatNumber, formatTime } from '../format.ts';
import { useAllMonitors, useProjects } from '../hooks.ts';
import { Link } from '../router.tsx';
import { SELF_PROJECT_ID, share, statsQuery } from './overview-data.ts';
import './overview.css';

const NewProject = () => {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: (n: string) => call('POST /v1/projects', { body: { name: n } }),
    onSuccess: async () => {
      setName('');
      await client.invalidateQueries({ queryKey: ['projects'] });
    },
  });
  const error = create.error instanceof ApiError ? create.error : null;
  const nameError = error?.fieldMessage('name');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(name.trim());
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="h-new-project">
      <h2 id="h-new-project">New project</h2>
      <div className="row">
        <Field id="project-name" label="Project name" error={nameError}>
          <input
            id="project-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoComplete="off"
            aria-invalid={nameError !== undefined}
            aria-describedby={nameError !== undefined ? 'project-name-error' : undefined}
          />
        </Field>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create project'}
        </button>
      </div>
      {/* A field error is shown next to the field; anything else (a conflict, the network) here. */}
      {create.error !== null && nameError === undefined && (
        <ErrorNote error={create.error} title="The project was not created" />
      )}
      {create.data !== undefined && (
        <p className="notice" role="status">
          Project <strong>{create.data.name}</strong> created. Next: create an API key in its{' '}
          <Link to={`/p/${create.data.id}/settings`}>Settings</Link>, then send a first event (its{' '}
          <Link to={`/p/${create.data.id}`}>overview</Link> shows how).
        </p>
      )}
    </form>
  );
};

const HealthCounts = ({ monitors }: { monitors: Monitor[] }) => {
  if (monitors.length === 0) return <span className="muted">no monitors</span>;
  const up = monitors.filter((m) => m.status === 'UP').length;
  const down = monitors.filter((m) => m.status === 'DOWN').length;
  const pending = monitors.length - up - down;
  return (
    <span className="project-health">
      <span className={up > 0 ? 'up-count' : 'muted'}>{up} UP</span>
      {' · '}
      <span className={down > 0 ? 'down-count' : 'muted'}>{down} DOWN</span>
      {pending > 0 && <span className="muted"> · {pending} pending</span>}
    </span>
  );
};

const ProjectTable = ({ projects, monitors }: { projects: Project[]; monitors: Monitor[] }) => {
  const stats = useQueries({ queries: projects.map((p) => statsQuery(p.id, '24h')) });
  return (
    <div className="table-wrap spaced">
      <table aria-label="Projects">
        <thead>
          <tr>
            <th scope="col">Project</th>
            <th scope="col" className="num">
              Requests (24 h)
            </th>
            <th scope="col" className="num">
              4xx
            </th>
            <th scope="col" className="num">
              5xx
            </th>
            <th scope="col" className="num">
              Error rate
            </th>
            <th scope="col">Health</th>
            <th scope="col">Last event</th>
          </tr>
        </thead>
        <tbody>
          {projects.map((p, i) => {
            const q = stats[i]!;
            const s = q.data;
            const cell = (f: (x: NonNullable<typeof s>) => string) => (s === undefined ? (q.error ? '!' : '…') : f(s));
            return (
              <tr key={p.id}>
                <th scope="row">
                  <Link to={`/p/${p.id}`}>{p.name}</Link>
                  {p.id === SELF_PROJECT_ID && (
                    <div className="muted small">watchlog's own audit log (no HTTP traffic)</div>
                  )}
                  {q.error !== null && <ErrorNote error={q.error} title="Statistics" />}
                </th>
                <td className="num">{cell((x) => formatNumber(x.total))}</td>
                <td className={`num${s && s.errors_4xx > 0 ? ' status-4xx' : ''}`}>
                  {cell((x) => formatNumber(x.errors_4xx))}
                </td>
                <td className={`num${s && s.errors_5xx > 0 ? ' status-5xx' : ''}`}>
                  {cell((x) => formatNumber(x.errors_5xx))}
                </td>
                <td className="num">{cell((x) => share(x.errors_4xx + x.errors_5xx, x.total))}</td>
                <td>
                  <HealthCounts monitors={monitors.filter((m) => m.project_id === p.id)} />
                </td>
                <td>
                  {s ? (
                    <time dateTime={s.last_event_at ?? undefined} title={formatTime(s.last_event_at)}>
                      {ago(s.last_event_at)}
                    </time>
                  ) : (
                    '…'
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
};

/** SPEC 3.1: the healthcheck page of the All Projects view, read-only: every DOWN monitor. */
const Healthcheck = ({
  projects,
  monitors,
  loading,
  error,
}: {
  projects: Project[];
  monitors: Monitor[];
  loading: boolean;
  error: unknown;
}) => {
  const down = monitors.filter((m) => m.status === 'DOWN' && m.enabled);
  const name = (id: string) => projects.find((p) => p.id === id)?.name ?? id;
  return (
    <section aria-labelledby="h-healthcheck">
      <h2 id="h-healthcheck">DOWN monitors in every project</h2>
      <ErrorNote error={error} title="Monitors could not be loaded" />
      {loading ? (
        <Loading what="monitors" />
      ) : error ? null : monitors.length === 0 ? (
        <p className="muted">
          No monitors yet. Add one in a project's <strong>Monitors</strong> tab, named like the service it watches.
        </p>
      ) : down.length === 0 ? (
        <p className="all-up" role="status">
          All {monitors.length === 1 ? 'monitors are' : `${monitors.length} monitors are`} up (or waiting for their
          first check).
        </p>
      ) : (
        <div className="table-wrap">
          <table aria-label="DOWN monitors">
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Monitor</th>
                <th scope="col">URL</th>
                <th scope="col">DOWN since</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {down.map((m) => (
                <tr key={m.id}>
                  <td>
                    <Link to={`/p/${m.project_id}`}>{name(m.project_id)}</Link>
                  </td>
                  <th scope="row">
                    <Link to={`/p/${m.project_id}/monitors?open=${m.id}`}>{m.name}</Link>
                  </th>
                  <td className="url">{m.url}</td>
                  <td>
                    <time dateTime={m.status_since ?? undefined} title={formatTime(m.status_since)}>
                      {m.status_since ? ago(m.status_since) : '—'}
                    </time>
                  </td>
                  <td>{m.last_error ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
};

export const Projects = () => {
  const admin = useSession().user?.role === 'admin';
  const projects = useProjects();
  const monitors = useAllMonitors();
  const list = projects.data ?? [];
  return (
    <section className="all-projects">
      <h1>All projects</h1>
      <ErrorNote error={projects.error} title="Projects could not be loaded" />
      {projects.isPending ? (
        <Loading what="projects" />
      ) : list.length === 0 && projects.error === null ? (
        <Empty>
          <h2>No projects yet</h2>
          {admin ? (
            <p>Create the first project below. It gets its own API keys, events, monitors and settings.</p>
          ) : (
            <p>
              You have no project yet: an admin creates projects and gives you access to them in{' '}
              <strong>Users and roles</strong>.
            </p>
          )}
        </Empty>
      ) : (
        list.length > 0 && <ProjectTable projects={list} monitors={monitors.data ?? []} />
      )}
      {admin && <NewProject />}
      <Healthcheck projects={list} monitors={monitors.data ?? []} loading={monitors.isPending} error={monitors.error} />
    </section>
  );
};
