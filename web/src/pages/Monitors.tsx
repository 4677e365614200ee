import { useEffect, useState } from 'react';
import { useQueries, useQuery } from '@tanstack/react-query';
import { MONITORS_PER_PROJECT, call, type Monitor } from '../api.ts';
import { useCanWrite } from '../auth.tsx';
import { Empty, ErrorNote, Loading } from '../components/ui.tsx';
import { LIVE_MS } from '../hooks.ts';
import { useSearchParams } from '../router.tsx';
import { STRIP_CHECKS } from './monitors/CheckStrip.tsx';
import { ConfirmDelete } from './monitors/ConfirmDelete.tsx';
import { HeartbeatCreated } from './monitors/HeartbeatCreated.tsx';
import { MonitorForm } from './monitors/MonitorForm.tsx';
import { MonitorRow } from './monitors/MonitorRow.tsx';
import './monitors/monitors.css';

/** Re-renders every few seconds, so "12 s ago" moves on even when the data did not change. */
const useNow = (everyMs: number): number => {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
};

/** The project's monitors, live: state, the last checks as a strip, uptime, certificate; add,
 *  edit, pause, test and delete them; each row opens the chart and table of its last 50 checks
 *  (`?open=<id>` opens one). */
export const Monitors = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const now = useNow(LIVE_MS);
  const [search, setSearch] = useSearchParams();
  const open = search.get('open');
  const [form, setForm] = useState<{ editing: Monitor | null } | null>(null);
  const [deleting, setDeleting] = useState<Monitor | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [beatUrl, setBeatUrl] = useState<{ name: string; url: string } | null>(null);

  const monitors = useQuery({
    queryKey: ['monitors', 'project', projectId],
    queryFn: () => call('GET /v1/monitors', { query: { project_id: projectId } }),
    refetchInterval: LIVE_MS,
  });
  const list = monitors.data ?? [];
  // The strips: the API has no history of many monitors at once, so one call per row, together,
  // on the page's refresh.
  const strips = useQueries({
    queries: list.map((m) => ({
      queryKey: ['monitors', 'strip', m.id],
      queryFn: () => call('GET /v1/monitors/:id/history', { params: { id: m.id }, query: { limit: STRIP_CHECKS } }),
      refetchInterval: LIVE_MS,
    })),
  });

  // Opened from the DOWN banner: bring the monitor's row into view once it is there.
  const openShown = open !== null && monitors.data?.some((m) => m.id === open) === true;
  useEffect(() => {
    if (openShown) document.getElementById(`monitor-${open}`)?.scrollIntoView({ block: 'start' });
  }, [open, openShown]);

  const toggleOpen = (id: string) => setSearch({ open: open === id ? undefined : id }, { replace: true });
  const atDefaultCap = list.length >= MONITORS_PER_PROJECT;
  const columns = canWrite ? 7 : 6;
  const startAdding = () => {
    setNotice(null);
    setBeatUrl(null);
    setForm({ editing: null });
  };

  const formPanel = form !== null && (
    <MonitorForm
      key={form.editing?.id ?? 'new'}
      projectId={projectId}
      editing={form.editing}
      onDone={(saved) => {
        setForm(null);
        if (saved === null) return;
        if (saved.heartbeat_url !== undefined) {
          setBeatUrl({ name: saved.name, url: saved.heartbeat_url });
          setNotice(`Monitor ${saved.name} added: it goes UP with its first beat.`);
        } else
          setNotice(
            form.editing === null
              ? `Monitor ${saved.name} added: its first check runs now.`
              : `Monitor ${saved.name} saved.`,
          );
      }}
    />
  );

  return (
    <section>
      <div className="monitors-head">
        <h1>Monitors</h1>
        {canWrite && form === null && list.length > 0 && (
          <button type="button" className="primary" onClick={startAdding}>
            Add monitor
          </button>
        )}
      </div>
      <p className="muted">
        Each monitor checks a URL, a TCP port or a DNS record on its interval, or awaits the beats of a job, and is UP
        while the checks pass. Uptime counts the checks of the last 24 hours and 30 days. While a monitor is DOWN, a
        banner says so on every screen.
      </p>
      {canWrite && atDefaultCap && (
        <p className="notice">
          This project has {list.length} monitors; a project may have {MONITORS_PER_PROJECT} unless the deployment
          allows more (the server says so when adding one).
        </p>
      )}
      {notice !== null && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {beatUrl !== null && <HeartbeatCreated name={beatUrl.name} url={beatUrl.url} onDone={() => setBeatUrl(null)} />}
      {formPanel}
      {monitors.isPending && <Loading what="monitors" />}
      {monitors.isError && <ErrorNote error={monitors.error} title="The monitors could not be read" />}
      {monitors.isSuccess && list.length === 0 && form === null && (
        <Empty>
          <p>
            <strong>No monitor in this project yet.</strong>
          </p>
          <p>
            A monitor checks that a service answers: every interval it sends a request to a URL (or opens a TCP port, or
            resolves a DNS name) and expects a status (200 by default) and what its assertions say; a heartbeat monitor
            waits for a job to call it. When the answer changes from healthy to failing, the service goes DOWN, a{' '}
            <code>system.healthcheck.down</code> audit event is recorded and the notification channels are told.
          </p>
          <p>
            Name the monitor exactly like the <code>service_name</code> of the service's events: the Overview's service
            table then shows its state next to that service.
          </p>
          {canWrite ? (
            <button type="button" className="primary" onClick={startAdding}>
              Add monitor
            </button>
          ) : (
            <p className="muted">Ask an admin or a member of this project to add one.</p>
          )}
        </Empty>
      )}
      {list.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Monitors" className="monitors-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Target</th>
                <th scope="col">State</th>
                <th scope="col">Last {STRIP_CHECKS} checks</th>
                <th scope="col">Last result</th>
                <th scope="col" className="num">
                  Uptime
                  <br />
                  24 h / 30 d
                </th>
                {canWrite && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((m, i) => (
                <MonitorRow
                  key={m.id}
                  m={m}
                  now={now}
                  checks={strips[i]?.data}
                  expanded={open === m.id}
                  columns={columns}
                  canWrite={canWrite}
                  onToggle={() => toggleOpen(m.id)}
                  onEdit={() => {
                    setNotice(null);
                    setForm({ editing: m });
                    window.scrollTo(0, 0);
                  }}
                  onDelete={() => setDeleting(m)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {monitors.isSuccess && open !== null && !list.some((m) => m.id === open) && (
        <p className="muted">The monitor linked here is not in this project any more (it may have been deleted).</p>
      )}
      {deleting !== null && (
        <ConfirmDelete
          monitor={deleting}
          onClose={(deleted) => {
            if (deleted) {
              setNotice(`Monitor ${deleting.name} deleted.`);
              if (open === deleting.id) toggleOpen(deleting.id);
            }
            setDeleting(null);
          }}
        />
      )}
    </section>
  );
};
