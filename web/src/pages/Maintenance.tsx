import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, type Maintenance as Window, type Monitor } from '../api.ts';
import { useCanWrite } from '../auth.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { Empty, ErrorNote, Loading } from '../components/ui.tsx';
import { formatTime } from '../format.ts';
import { LIVE_MS, useProjectMonitors } from '../hooks.ts';
import { useSearchParams } from '../router.tsx';
import { addMonths, Calendar, monthOf, monthText, monthTitle, spanText } from './maintenance/Calendar.tsx';
import { MaintenanceForm } from './maintenance/MaintenanceForm.tsx';
import { scheduleText } from './maintenance/schedule.ts';
import './maintenance/maintenance.css';

const coverText = (w: Window, monitors: readonly Monitor[] | undefined) =>
  w.monitor_ids === 'all'
    ? 'Every monitor'
    : w.monitor_ids.map((id) => monitors?.find((m) => m.id === id)?.name ?? 'a deleted monitor').join(', ');

const DeleteWindow = ({ window: w, onClose }: { window: Window; onClose: (deleted: boolean) => void }) => {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => call('DELETE /v1/maintenances/:id', { params: { id: w.id } }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['maintenances'] });
      onClose(true);
    },
  });
  return (
    <ConfirmDialog
      title={`Delete the maintenance window ${w.title}?`}
      confirm={remove.isPending ? 'Deleting…' : 'Delete window'}
      busy={remove.isPending}
      error={remove.error}
      failed="The window was not deleted"
      onConfirm={() => remove.mutate()}
      onCancel={() => onClose(false)}
    >
      <p>
        {w.open !== null ? 'Its open occurrence ends now: ' : ''}
        its monitors notify and count towards uptime as usual again, and status pages stop announcing it.
      </p>
    </ConfirmDialog>
  );
};

/** One window in the list: when, what it covers, whether it is open, its next occurrences. */
const WindowRow = ({
  w,
  monitors,
  canWrite,
  onEdit,
  onDelete,
}: {
  w: Window;
  monitors: readonly Monitor[] | undefined;
  canWrite: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) => (
  <li className="mt-window">
    <div className="mt-window-head">
      <h3>{w.title}</h3>
      {w.open !== null && <span className="maintenance-badge">under way</span>}
    </div>
    <p>
      {w.schedule.kind === 'once'
        ? `Once: ${spanText({ start: Date.parse(w.schedule.starts_at), end: Date.parse(w.schedule.ends_at) })}`
        : scheduleText(w.schedule)}
    </p>
    <p className="muted">Monitors: {coverText(w, monitors)}</p>
    {w.description !== null && <p className="mt-description">{w.description}</p>}
    {w.open !== null && <p>Open until {formatTime(w.open.end)}.</p>}
    {w.next.length > 0 ? (
      <details>
        <summary>Next {w.next.length === 1 ? 'occurrence' : `${w.next.length} occurrences`}</summary>
        <ul>
          {w.next.map((o) => (
            <li key={o.start}>{spanText({ start: Date.parse(o.start), end: Date.parse(o.end) })}</li>
          ))}
        </ul>
      </details>
    ) : (
      w.open === null && <p className="muted">No occurrence in the next 90 days.</p>
    )}
    {canWrite && (
      <div className="row">
        <button type="button" onClick={onEdit} aria-label={`Edit ${w.title}`}>
          Edit
        </button>
        <button type="button" className="danger" onClick={onDelete} aria-label={`Delete ${w.title}`}>
          Delete
        </button>
      </div>
    )}
  </li>
);

/** The project's maintenance windows: a month calendar of their occurrences (`?month=2026-09`),
 *  the windows themselves, and the form to schedule or change one. */
export const Maintenance = ({ projectId }: { projectId: string }) => {
  const canWrite = useCanWrite();
  const [search, setSearch] = useSearchParams();
  const month = monthOf(search.get('month'));
  const [form, setForm] = useState<{ editing: Window | null } | null>(null);
  const [deleting, setDeleting] = useState<Window | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const monitors = useProjectMonitors(projectId).data;
  const windows = useQuery({
    queryKey: ['maintenances', projectId],
    queryFn: () => call('GET /v1/maintenances', { query: { project_id: projectId } }),
    refetchInterval: LIVE_MS,
  });
  const list = windows.data ?? [];
  const fingerprint = list.map((w) => `${w.id}@${w.updated_at}`).join(',');
  const goTo = (d: Date) => setSearch({ month: monthText(d) }, { replace: true });
  return (
    <section>
      <div className="sp-head">
        <h1>Maintenance</h1>
        {canWrite && form === null && (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setNotice(null);
              setForm({ editing: null });
            }}
          >
            Schedule maintenance
          </button>
        )}
      </div>
      <p className="muted">
        Planned work on some monitors, or all: while a window is open its monitors show a maintenance badge and notify
        no one.
      </p>
      {notice !== null && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {form !== null && (
        <MaintenanceForm
          key={form.editing?.id ?? 'new'}
          projectId={projectId}
          editing={form.editing}
          onDone={(saved) => {
            setForm(null);
            if (saved !== null) setNotice(`${saved.title}: ${form.editing === null ? 'scheduled' : 'saved'}.`);
          }}
        />
      )}
      <section aria-labelledby="calendar-heading" className="mt-calendar">
        <div className="mt-month">
          <h2 id="calendar-heading">{monthTitle(month)}</h2>
          <nav className="row" aria-label="Months">
            <button type="button" onClick={() => goTo(addMonths(month, -1))}>
              Previous month
            </button>
            <button type="button" onClick={() => goTo(monthOf(null))}>
              This month
            </button>
            <button type="button" onClick={() => goTo(addMonths(month, 1))}>
              Next month
            </button>
          </nav>
        </div>
        {windows.isPending && <Loading what="maintenance windows" />}
        <ErrorNote error={windows.error} title="The maintenance windows could not be read" />
        {windows.isSuccess && <Calendar windows={list} month={month} fingerprint={fingerprint} />}
      </section>
      <section aria-labelledby="windows-heading">
        <h2 id="windows-heading">Windows</h2>
        {windows.isSuccess && list.length === 0 && (
          <Empty>No maintenance window yet: schedule one before planned work, once or on a rule.</Empty>
        )}
        {list.length > 0 && (
          <ul className="mt-windows" aria-label="Maintenance windows">
            {list.map((w) => (
              <WindowRow
                key={w.id}
                w={w}
                monitors={monitors}
                canWrite={canWrite}
                onEdit={() => {
                  setNotice(null);
                  setForm({ editing: w });
                  window.scrollTo(0, 0);
                }}
                onDelete={() => setDeleting(w)}
              />
            ))}
          </ul>
        )}
      </section>
      {deleting !== null && (
        <DeleteWindow
          window={deleting}
          onClose={(deleted) => {
            if (deleted) setNotice(`${deleting.title}: deleted.`);
            setDeleting(null);
          }}
        />
      )}
    </section>
  );
};
