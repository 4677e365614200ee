import { useQuery } from '@tanstack/react-query';
import { call, type Monitor } from '../../api.ts';
import { ErrorNote } from '../../components/ui.tsx';
import { formatTime } from '../../format.ts';
import { LIVE_MS } from '../../hooks.ts';
import {
  BANNER_TEXT,
  bannerOf,
  incidentsOn,
  maintenanceOn,
  type PageValues,
  publicStateOf,
  STATE_TEXT,
} from './page-values.ts';

/** What the public page would say with these settings, drawn here from the API's data: the
 *  banner, open incidents, maintenance open or due within 7 days, and each group's monitors with
 *  their states. The public page itself also draws the daily uptime bars and past incidents; it
 *  cannot be framed (its CSP says `frame-ancestors 'none'`), so a published page is opened in a
 *  tab of its own instead. */
export const Preview = ({
  projectId,
  values,
  monitors,
}: {
  projectId: string;
  values: PageValues;
  monitors: readonly Monitor[];
}) => {
  const incidents = useQuery({
    queryKey: ['incidents', 'open', projectId],
    queryFn: () => call('GET /v1/incidents', { query: { project_id: projectId, open: 'true', limit: 100 } }),
    refetchInterval: LIVE_MS,
  });
  const windows = useQuery({
    queryKey: ['maintenances', projectId],
    queryFn: () => call('GET /v1/maintenances', { query: { project_id: projectId } }),
    refetchInterval: LIVE_MS * 4,
  });
  const byId = new Map(monitors.map((m) => [m.id, m]));
  const onPage = new Set(values.groups.flatMap((g) => g.monitorIds).filter((id) => byId.has(id)));
  const open = incidentsOn(incidents.data?.data ?? [], onPage);
  const states = [...onPage].map((id) => publicStateOf(byId.get(id)!));
  const banner = bannerOf(states, open);
  const maintenance = maintenanceOn(windows.data ?? [], onPage, Date.now());
  const title = values.title.trim() === '' ? 'Untitled status page' : values.title.trim();
  return (
    <section className="sp-preview" aria-label="Preview">
      <h2>Preview</h2>
      <p className="muted small">
        From the form as it is now, with the monitors' current states. The public page also shows each monitor's uptime
        over {values.show_uptime_days.trim() || '90'} days and the incidents of the last 14 days.
      </p>
      <div className="sp-preview-page">
        <h3 className="sp-preview-title">{title}</h3>
        {values.description.trim() !== '' && <p className="sp-preview-description">{values.description.trim()}</p>}
        <p className={`sp-banner ${banner}`} role="status">
          {BANNER_TEXT[banner]}
        </p>
        <ErrorNote error={incidents.error} title="The open incidents could not be read" />
        {open.map((i) => (
          <div key={i.id} className="sp-preview-incident">
            <strong>{i.title}</strong> <span className={`impact ${i.impact}`}>{i.impact} impact</span>
            <div>
              <span className="incident-status">{i.status}</span> {i.updates.at(-1)?.message ?? ''}
            </div>
          </div>
        ))}
        {maintenance.map((m) => (
          <div key={m.window.id} className="sp-preview-maintenance">
            <strong>{m.open ? 'Maintenance under way' : 'Scheduled maintenance'}:</strong> {m.window.title}{' '}
            <span className="muted">
              {formatTime(m.start)} – {formatTime(m.end)}
            </span>
          </div>
        ))}
        {values.groups.map((g) => (
          <div key={g.key} className="sp-preview-group">
            <h4>{g.name.trim() === '' ? 'Unnamed group' : g.name.trim()}</h4>
            {g.monitorIds.length === 0 && <p className="muted">No monitor.</p>}
            <ul>
              {g.monitorIds.map((id) => {
                const m = byId.get(id);
                if (m === undefined) return null;
                const state = publicStateOf(m);
                return (
                  <li key={id}>
                    <span>{m.name}</span> <span className={`sp-state ${state}`}>{STATE_TEXT[state]}</span>
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
      </div>
    </section>
  );
};
