import { useProjects } from '../hooks.ts';
import { CopyButton } from '../components/CopyButton.tsx';
import { Link, useSearchParams } from '../router.tsx';
import { ApiKeys } from './settings/ApiKeys.tsx';
import { Channels } from './settings/Channels.tsx';
import { Masking } from './settings/Masking.tsx';
import { Sinks } from './settings/Sinks.tsx';
import './settings/settings.css';

const TABS = [
  { tab: 'keys', label: 'API keys' },
  { tab: 'channels', label: 'Notifications' },
  { tab: 'masking', label: 'Masking' },
  { tab: 'sinks', label: 'Log sinks' },
  { tab: 'project', label: 'Project' },
] as const;

export const Settings = ({ projectId }: { projectId: string }) => {
  const [search] = useSearchParams();
  const tab = TABS.find((t) => t.tab === search.get('tab'))?.tab ?? 'keys';
  const project = useProjects().data?.find((p) => p.id === projectId);
  return (
    <section>
      <h1>Settings{project ? `: ${project.name}` : ''}</h1>
      <nav className="st-tabs" aria-label="Settings sections">
        {TABS.map((t) => (
          <Link
            key={t.tab}
            to={`/p/${projectId}/settings?tab=${t.tab}`}
            aria-current={t.tab === tab ? 'page' : undefined}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      {tab === 'keys' && <ApiKeys projectId={projectId} />}
      {tab === 'channels' && <Channels projectId={projectId} />}
      {tab === 'masking' && <Masking projectId={projectId} />}
      {tab === 'sinks' && <Sinks projectId={projectId} />}
      {tab === 'project' && (
        <section aria-labelledby="project-heading">
          <h2 id="project-heading">Project</h2>
          <dl className="st-project">
            <dt>Name</dt>
            <dd>{project?.name ?? '…'}</dd>
            <dt>Id</dt>
            <dd>
              <code>{projectId}</code> <CopyButton value={projectId} label="Copy the project id" />
            </dd>
            <dt>Created</dt>
            <dd>{project?.created_at ?? '…'}</dd>
          </dl>
          <p className="muted">
            The id is the <code>project_id</code> of the API&apos;s filters. Anomaly rules are on the{' '}
            <Link to={`/p/${projectId}/anomalies`}>Anomalies</Link> page; users and their projects on{' '}
            <Link to="/users">Users and roles</Link> (admins).
          </p>
        </section>
      )}
    </section>
  );
};
