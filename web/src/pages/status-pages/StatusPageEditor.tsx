import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, type StatusPage } from '../../api.ts';
import { useCanWrite } from '../../auth.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote, Loading } from '../../components/ui.tsx';
import { useProjectMonitors } from '../../hooks.ts';
import { Link, navigate, useSearchParams } from '../../router.tsx';
import { valuesOf } from './page-values.ts';
import { Preview } from './Preview.tsx';
import { StatusPageForm } from './StatusPageForm.tsx';
import { Subscribers } from './Subscribers.tsx';
import './status-pages.css';

/** The public page's address on this watchlog. */
export const publicPath = (slug: string) => `/status/${encodeURIComponent(slug)}`;

export const PublicLink = ({ page }: { page: StatusPage }) =>
  page.published ? (
    <a href={publicPath(page.slug)} target="_blank" rel="noopener noreferrer">
      {publicPath(page.slug)}
      <span className="visually-hidden"> (the public page, in a new tab)</span>
    </a>
  ) : (
    <span className="muted">{publicPath(page.slug)} (not published)</span>
  );

/** Delete a page after asking: its slug and custom domain are free again at once. */
const DeletePage = ({ page, onDeleted }: { page: StatusPage; onDeleted: () => void }) => {
  const [asking, setAsking] = useState(false);
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => call('DELETE /v1/status-pages/:id', { params: { id: page.id } }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['status-pages'] });
      onDeleted();
    },
  });
  return (
    <>
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        Delete status page
      </button>
      {asking && (
        <ConfirmDialog
          title={`Delete the status page ${page.title}?`}
          confirm={remove.isPending ? 'Deleting…' : 'Delete status page'}
          busy={remove.isPending}
          error={remove.error}
          failed="The status page was not deleted"
          onConfirm={() => remove.mutate()}
          onCancel={() => {
            remove.reset();
            setAsking(false);
          }}
        >
          <p>
            {publicPath(page.slug)} answers 404 from now on and its subscribers hear nothing more. The monitors,
            incidents and maintenance windows stay.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
};

/** A new page, or one page: its settings beside a preview, and its subscribers (`?tab=subscribers`). */
const Editor = ({ projectId, page }: { projectId: string; page: StatusPage | null }) => {
  const canWrite = useCanWrite();
  const [search, setSearch] = useSearchParams();
  const tab = page !== null && search.get('tab') === 'subscribers' ? 'subscribers' : 'settings';
  const [values, setValues] = useState(() => valuesOf(page));
  const [notice, setNotice] = useState<string | null>(null);
  const monitors = useProjectMonitors(projectId);
  const list = `/p/${projectId}/status-pages`;
  const heading = page === null ? 'New status page' : page.title;
  return (
    <section>
      <p>
        <Link to={list}>← Status pages</Link>
      </p>
      <div className="sp-head">
        <h1>{heading}</h1>
        {page !== null && canWrite && <DeletePage page={page} onDeleted={() => navigate(list)} />}
      </div>
      {page !== null && (
        <p>
          Public page: <PublicLink page={page} />
          {page.custom_domain !== null && (
            <>
              {' '}
              · also at <code>{page.custom_domain}</code>
            </>
          )}
        </p>
      )}
      {page !== null && (
        <nav className="st-tabs" aria-label="Status page sections">
          {(['settings', 'subscribers'] as const).map((t) => (
            <Link
              key={t}
              to={`${list}/${page.id}${t === 'settings' ? '' : '?tab=subscribers'}`}
              aria-current={t === tab ? 'page' : undefined}
            >
              {t === 'settings' ? 'Settings and preview' : 'Subscribers'}
            </Link>
          ))}
        </nav>
      )}
      {notice !== null && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {monitors.isError && <ErrorNote error={monitors.error} title="The project's monitors could not be read" />}
      {tab === 'subscribers' && page !== null && <Subscribers pageId={page.id} title={page.title} />}
      {tab === 'settings' && (
        <div className="sp-editor">
          {canWrite ? (
            <StatusPageForm
              projectId={projectId}
              editing={page}
              values={values}
              monitors={monitors.data ?? []}
              onChange={setValues}
              onCancel={() => navigate(list)}
              onSaved={(saved) => {
                if (page === null) {
                  navigate(`${list}/${saved.id}`);
                  return;
                }
                setValues(valuesOf(saved));
                setNotice(
                  saved.published
                    ? `Saved. The public page shows the change within seconds.`
                    : 'Saved. The page is not published: only the preview shows it.',
                );
                setSearch({}, { replace: true });
              }}
            />
          ) : (
            <p className="muted">You may read this page's settings; an admin or a member may change them.</p>
          )}
          <Preview projectId={projectId} values={values} monitors={monitors.data ?? []} />
        </div>
      )}
    </section>
  );
};

export const NewStatusPage = ({ projectId }: { projectId: string }) => <Editor projectId={projectId} page={null} />;

export const StatusPageScreen = ({ projectId, pageId }: { projectId: string; pageId: string }) => {
  const page = useQuery({
    queryKey: ['status-pages', 'one', pageId],
    queryFn: () => call('GET /v1/status-pages/:id', { params: { id: pageId } }),
  });
  if (page.isPending) return <Loading what="the status page" />;
  if (page.isError) return <ErrorNote error={page.error} title="The status page could not be read" />;
  // A page of another project, linked by mistake, is read where it belongs.
  if (page.data.project_id !== projectId) {
    return (
      <p>
        This status page belongs to another project:{' '}
        <Link to={`/p/${page.data.project_id}/status-pages/${page.data.id}`}>open it there</Link>.
      </p>
    );
  }
  return <Editor key={page.data.id} projectId={projectId} page={page.data} />;
};
