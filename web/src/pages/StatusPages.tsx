import { useQuery } from '@tanstack/react-query';
import { call } from '../api.ts';
import { useCanWrite } from '../auth.tsx';
import { Empty, ErrorNote, Loading } from '../components/ui.tsx';
import { useProjectMonitors } from '../hooks.ts';
import { Link } from '../router.tsx';
import { PublicLink } from './status-pages/StatusPageEditor.tsx';
import './status-pages/status-pages.css';

/** The project's status pages: each one's title, public address, whether it is published and what
 *  it shows; a page opens its settings, preview and subscribers. */
export const StatusPages = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const pages = useQuery({
    queryKey: ['status-pages', 'project', projectId],
    queryFn: () => call('GET /v1/status-pages', { query: { project_id: projectId } }),
  });
  const monitors = useProjectMonitors(projectId);
  const base = `/p/${projectId}/status-pages`;
  const list = pages.data ?? [];
  const newButton = canWrite && (
    <Link to={`${base}/new`} className="button primary">
      New status page
    </Link>
  );
  return (
    <section>
      <div className="sp-head">
        <h1>Status pages</h1>
        {list.length > 0 && newButton}
      </div>
      <p className="muted">
        A status page tells anyone the state of some of this project's monitors, its incidents and its planned
        maintenance, at <code>/status/&lt;slug&gt;</code> once published. It shows names and states, never a URL, a host
        or an error.
      </p>
      {pages.isPending && <Loading what="status pages" />}
      {pages.isError && <ErrorNote error={pages.error} title="The status pages could not be read" />}
      {pages.isSuccess && list.length === 0 && (
        <Empty>
          <p>
            <strong>No status page in this project yet.</strong>
          </p>
          <p>
            Make one, group the monitors it shows, look at its preview, then publish it. Incidents and maintenance
            windows of the project appear on it by themselves.
          </p>
          {canWrite ? newButton : <p className="muted">Ask an admin or a member of this project to make one.</p>}
        </Empty>
      )}
      {list.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Status pages">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Public page</th>
                <th scope="col">Published</th>
                <th scope="col" className="num">
                  Monitors
                </th>
                <th scope="col" className="hide-narrow">
                  Custom domain
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((p) => {
                const shown = p.groups.flatMap((g) => g.monitor_ids);
                const known = shown.filter((id) => monitors.data?.some((m) => m.id === id) ?? true).length;
                return (
                  <tr key={p.id}>
                    <th scope="row">
                      <Link to={`${base}/${p.id}`}>{p.title}</Link>
                    </th>
                    <td className="sp-public">
                      <PublicLink page={p} />
                    </td>
                    <td>{p.published ? 'Yes' : 'No'}</td>
                    <td className="num">
                      {known}
                      {p.groups.length > 0 && (
                        <span className="muted">
                          {' '}
                          in {p.groups.length} {p.groups.length === 1 ? 'group' : 'groups'}
                        </span>
                      )}
                    </td>
                    <td className="hide-narrow">{p.custom_domain ?? <span className="muted">—</span>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
};
