import { useEffect, useId, useRef } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, type Monitor } from '../../api.ts';
import { ErrorNote } from '../../components/ui.tsx';

/** A modal dialog (the platform's <dialog>: focus trapped, Escape cancels) asking before a monitor
 *  and its history go. */
export const ConfirmDelete = ({ monitor, onClose }: { monitor: Monitor; onClose: (deleted: boolean) => void }) => {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useId();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => call('DELETE /v1/monitors/:id', { params: { id: monitor.id } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['monitors'] });
      onClose(true);
    },
  });

  useEffect(() => {
    const el = dialog.current;
    if (el !== null && !el.open) el.showModal();
    return () => el?.close();
  }, []);

  return (
    <dialog
      ref={dialog}
      className="confirm-dialog"
      aria-labelledby={heading}
      onCancel={(e) => {
        e.preventDefault();
        onClose(false);
      }}
    >
      <h2 id={heading}>Delete the monitor {monitor.name}?</h2>
      <p>
        Its checks stop and its history leaves the dashboard. The audit log keeps the monitor's transitions (
        <code>system.healthcheck</code> events). This cannot be undone: to stop checking for a while, pause it instead.
      </p>
      <ErrorNote error={remove.error} title="The monitor was not deleted" />
      <div className="row">
        <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
          {remove.isPending ? 'Deleting…' : 'Delete monitor'}
        </button>
        {/* biome-ignore lint/a11y/noAutofocus: the dialog opens on Cancel, the choice that changes nothing */}
        <button type="button" autoFocus onClick={() => onClose(false)}>
          Cancel
        </button>
      </div>
    </dialog>
  );
};
