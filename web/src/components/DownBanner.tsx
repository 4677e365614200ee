import { useAllMonitors, useProjects } from '../hooks.ts';
import { Link } from '../router.tsx';

/** On every screen while any monitor the user can see is DOWN: each service and its URL. */
export const DownBanner = () => {
  const monitors = useAllMonitors();
  const projects = useProjects();
  const down = (monitors.data ?? []).filter((m) => m.status === 'DOWN' && m.enabled);
  if (down.length === 0) return null;
  const projectName = (id: string) => projects.data?.find((p) => p.id === id)?.name ?? id;
  const monitorsPage = (m: (typeof down)[number]) => `/p/${m.project_id}/monitors?open=${m.id}`;
  return (
    <section className="down-banner" role="alert" aria-label="Services down">
      <strong>{down.length === 1 ? '1 service is DOWN' : `${down.length} services are DOWN`}</strong>
      <ul>
        {down.map((m) => (
          <li key={m.id}>
            <Link to={monitorsPage(m)}>{m.name}</Link> <span className="url">{m.url}</span>{' '}
            <span className="muted">
              ({projectName(m.project_id)}
              {m.last_error ? `: ${m.last_error}` : ''})
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
};
