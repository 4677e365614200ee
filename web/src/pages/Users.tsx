import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, type Call, call, type Project, type Role, type User } from '../api.ts';
import { useSession } from '../auth.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { Empty, ErrorNote, Field, Loading } from '../components/ui.tsx';
import { formatTime } from '../format.ts';
import { useProjects } from '../hooks.ts';
import './users.css';

const ROLES = [
  { role: 'admin', says: 'every project; manages users and projects' },
  { role: 'member', says: 'its projects; changes monitors, keys, channels and settings' },
  { role: 'auditor', says: 'its projects, read only; also the watchlog project (logins and changes)' },
] as const satisfies ReadonlyArray<{ role: Role; says: string }>;

const ProjectChoice = ({
  projects,
  chosen,
  onChange,
  idPrefix,
}: {
  projects: Project[];
  chosen: string[];
  onChange: (ids: string[]) => void;
  idPrefix: string;
}) => (
  <fieldset className="us-projects">
    <legend>Projects</legend>
    {projects.length === 0 && <p className="muted">No project yet.</p>}
    {projects.map((p) => (
      <label key={p.id} htmlFor={`${idPrefix}-${p.id}`}>
        <input
          id={`${idPrefix}-${p.id}`}
          type="checkbox"
          checked={chosen.includes(p.id)}
          onChange={(e) => onChange(e.target.checked ? [...chosen, p.id] : chosen.filter((id) => id !== p.id))}
        />{' '}
        {p.name}
      </label>
    ))}
  </fieldset>
);

const NewUser = ({ projects }: { projects: Project[] }) => {
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [projectIds, setProjectIds] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: () =>
      call('POST /v1/users', { body: { email, password, role, project_ids: role === 'admin' ? [] : projectIds } }),
    onSuccess: async () => {
      setEmail('');
      setPassword('');
      setProjectIds([]);
      await client.invalidateQueries({ queryKey: ['users'] });
    },
  });
  const fieldError = (path: string) => (create.error instanceof ApiError ? create.error.fieldMessage(path) : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="New user" className="panel stack" noValidate>
      <h2>New user</h2>
      <div className="row">
        <Field id="user-email" label="E-mail" error={fieldError('email')}>
          <input
            id="user-email"
            type="email"
            autoComplete="off"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </Field>
        <Field
          id="user-password"
          label="Initial password"
          hint="8 to 1024 characters; they can change it"
          error={fieldError('password')}
        >
          <input
            id="user-password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <Field id="user-role" label="Role" error={fieldError('role')}>
          <select id="user-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r.role} value={r.role}>
                {r.role}: {r.says}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {role !== 'admin' && (
        <ProjectChoice projects={projects} chosen={projectIds} onChange={setProjectIds} idPrefix="new-user-project" />
      )}
      <ErrorNote error={create.error} title="The user was not created" />
      {create.isSuccess && (
        <p role="status" className="notice">
          User {create.data.email} created.
        </p>
      )}
      <div>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create user'}
        </button>
      </div>
    </form>
  );
};

const ConfirmDisable = ({ user, onClose }: { user: User; onClose: () => void }) => {
  const client = useQueryClient();
  const disable = useMutation({
    mutationFn: () => call('DELETE /v1/users/:id', { params: { id: user.id } }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['users'] });
      onClose();
    },
  });
  return (
    <ConfirmDialog
      title={`Disable ${user.email}?`}
      confirm="Disable user"
      busy={disable.isPending}
      error={disable.error}
      failed="The user was not disabled"
      onConfirm={() => disable.mutate()}
      onCancel={onClose}
    >
      <p>
        They can no longer sign in, and their tokens stop working at once. The account is kept: an admin can enable it
        again.
      </p>
    </ConfirmDialog>
  );
};

/** For a user who lost their authenticator app, passkeys and recovery codes. */
const ConfirmResetFactors = ({ user, onClose }: { user: User; onClose: () => void }) => {
  const reset = useMutation({
    mutationFn: () => call('DELETE /v1/users/:id/factors', { params: { id: user.id } }),
    onSuccess: onClose,
  });
  return (
    <ConfirmDialog
      title={`Reset the second factors of ${user.email}?`}
      confirm="Reset second factors"
      busy={reset.isPending}
      error={reset.error}
      failed="The second factors were not reset"
      onConfirm={() => reset.mutate()}
      onCancel={onClose}
    >
      <p>
        Their authenticator app, passkeys and recovery codes are removed: the password alone signs them in, and they
        enrol again where a second factor is required. Do this only for someone whose identity you checked another way.
      </p>
    </ConfirmDialog>
  );
};

const UserRow = ({ user, projects, me }: { user: User; projects: Project[]; me: boolean }) => {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [role, setRole] = useState<Role>(user.role);
  const [projectIds, setProjectIds] = useState<string[]>(user.project_ids);
  const [confirming, setConfirming] = useState(false);
  const [resetting, setResetting] = useState(false);
  const update = useMutation({
    mutationFn: (body: Call<'PUT /v1/users/:id'>['body']) =>
      call('PUT /v1/users/:id', { params: { id: user.id }, body }),
    onSuccess: async () => {
      setEditing(false);
      await client.invalidateQueries({ queryKey: ['users'] });
    },
  });
  // Signs the user out everywhere (a stolen session, a lost laptop); they may sign in again.
  const endSessions = useMutation({
    mutationFn: () => call('DELETE /v1/users/:id/sessions', { params: { id: user.id } }),
  });
  const names =
    user.role === 'admin'
      ? 'every project'
      : user.project_ids.map((id) => projects.find((p) => p.id === id)?.name ?? id).join(', ') || 'none';
  return (
    <>
      <tr>
        <td>
          {user.email}
          {me && <span className="muted"> (you)</span>}
        </td>
        <td>{user.role}</td>
        <td>{names}</td>
        <td>{user.disabled ? <span className="muted">Disabled</span> : 'Active'}</td>
        <td>{formatTime(user.created_at)}</td>
        <td className="us-actions">
          <button
            type="button"
            aria-expanded={editing}
            onClick={() => setEditing(!editing)}
            aria-label={`Edit ${user.email}`}
          >
            Edit
          </button>
          {user.disabled ? (
            <button
              type="button"
              onClick={() => update.mutate({ disabled: false })}
              aria-label={`Enable ${user.email}`}
            >
              Enable
            </button>
          ) : (
            !me && (
              <button
                type="button"
                className="danger"
                onClick={() => setConfirming(true)}
                aria-label={`Disable ${user.email}`}
              >
                Disable
              </button>
            )
          )}
          {!me && !user.disabled && (
            <button
              type="button"
              onClick={() => endSessions.mutate()}
              disabled={endSessions.isPending}
              aria-label={`End the sessions of ${user.email}`}
            >
              {endSessions.data ? `Ended ${endSessions.data.ended}` : 'End sessions'}
            </button>
          )}
          {!me && (
            <button
              type="button"
              onClick={() => setResetting(true)}
              aria-label={`Reset the second factors of ${user.email}`}
            >
              Reset 2FA
            </button>
          )}
          {confirming && <ConfirmDisable user={user} onClose={() => setConfirming(false)} />}
          {resetting && <ConfirmResetFactors user={user} onClose={() => setResetting(false)} />}
        </td>
      </tr>
      {(editing || update.error !== null) && (
        <tr>
          <td colSpan={6}>
            {editing && (
              <form
                aria-label={`Access of ${user.email}`}
                className="stack"
                onSubmit={(e) => {
                  e.preventDefault();
                  update.mutate({ role, project_ids: role === 'admin' ? [] : projectIds });
                }}
              >
                <label htmlFor={`role-${user.id}`}>Role</label>
                <select id={`role-${user.id}`} value={role} onChange={(e) => setRole(e.target.value as Role)}>
                  {ROLES.map((r) => (
                    <option key={r.role} value={r.role}>
                      {r.role}: {r.says}
                    </option>
                  ))}
                </select>
                {role !== 'admin' && (
                  <ProjectChoice
                    projects={projects}
                    chosen={projectIds}
                    onChange={setProjectIds}
                    idPrefix={`user-${user.id}-project`}
                  />
                )}
                <p className="muted">Saving signs them out everywhere: their older tokens are refused.</p>
                <div className="row">
                  <button type="submit" disabled={update.isPending}>
                    Save access
                  </button>
                  <button type="button" onClick={() => setEditing(false)}>
                    Cancel
                  </button>
                </div>
              </form>
            )}
            <ErrorNote error={update.error} title="The user was not changed" />
          </td>
        </tr>
      )}
    </>
  );
};

/** Users and roles: admins only (the API refuses everyone else, and so does this page, in words). */
export const Users = () => {
  const { user: me } = useSession();
  const projects = useProjects();
  const users = useQuery({
    queryKey: ['users'],
    queryFn: () => call('GET /v1/users'),
    enabled: me?.role === 'admin',
  });
  if (me === undefined) return <Loading what="your account" />;
  if (me.role !== 'admin') {
    return (
      <section>
        <h1>Users and roles</h1>
        <p>Only admins manage users. Ask an admin to change your role or your projects.</p>
      </section>
    );
  }
  const visible = (projects.data ?? []).filter((p) => p.name !== 'watchlog');
  return (
    <section>
      <h1>Users and roles</h1>
      <ul className="muted us-roles">
        {ROLES.map((r) => (
          <li key={r.role}>
            <strong>{r.role}</strong>: {r.says}
          </li>
        ))}
      </ul>
      <ErrorNote error={users.error} title="Users could not be read" />
      {users.isPending && <Loading what="users" />}
      {users.data && users.data.length === 0 && <Empty>No user yet.</Empty>}
      {users.data && users.data.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Users">
            <thead>
              <tr>
                <th>E-mail</th>
                <th>Role</th>
                <th>Projects</th>
                <th>State</th>
                <th>Created</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <UserRow key={u.id} user={u} projects={projects.data ?? []} me={u.id === me.id} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <NewUser projects={visible} />
    </section>
  );
};
