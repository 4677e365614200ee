import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../../api.ts';
import { ErrorNote, Loading } from '../../components/ui.tsx';
import { ago, formatTime } from '../../format.ts';

const KEY = ['sign-in-sessions'];

/** Where the user is signed in: each session with its device, address and times, an End button
 *  (its tokens are refused from then on; another browser signed in with it is signed out within
 *  a token's lifetime), and one to end all but this one. */
export const SignInSessions = () => {
  const client = useQueryClient();
  const sessions = useQuery({ queryKey: KEY, queryFn: () => call('GET /v1/auth/sessions') });
  const done = () => client.invalidateQueries({ queryKey: KEY });
  const endOne = useMutation({
    mutationFn: (sessionId: string) => call('DELETE /v1/auth/sessions/:sessionId', { params: { sessionId } }),
    onSettled: done,
  });
  const endOthers = useMutation({ mutationFn: () => call('DELETE /v1/auth/sessions'), onSettled: done });

  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      {sessions.isPending ? (
        <Loading what="sessions" />
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(sessions.data ?? []).map((s) => (
              <tr key={s.id}>
                <td>
                  {s.device}
                  {s.kind === 'token' && <span className="muted"> (API token)</span>}
                  {s.method !== 'password' && <span className="muted"> · {s.method}</span>}
                </td>
                <td>{s.address}</td>
                <td title={s.created_at}>{formatTime(s.created_at)}</td>
                <td title={s.last_used_at}>{ago(s.last_used_at)}</td>
                <td>
                  {s.current ? (
                    <strong>This session</strong>
                  ) : (
                    <button
                      type="button"
                      aria-label={`End the session of ${s.device} from ${s.address}`}
                      onClick={() => endOne.mutate(s.id)}
                    >
                      End
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorNote error={sessions.error ?? endOne.error ?? endOthers.error} />
      <button type="button" onClick={() => endOthers.mutate()}>
        End all other sessions
      </button>
    </section>
  );
};
