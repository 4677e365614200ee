import { useEffect, useId, useRef, type ReactNode } from 'react';
import { ErrorNote } from './ui.tsx';

/** A modal question before something that cannot be undone (the platform's <dialog>: focus is
 *  trapped, Escape cancels, Cancel has the focus so Enter does not destroy by accident). */
export const ConfirmDialog = ({
  title,
  children,
  confirm,
  busy,
  error,
  failed,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirm: string;
  busy: boolean;
  error: unknown;
  failed: string;
  onConfirm: () => void;
  onCancel: () => void;
}) => {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useId();
  useEffect(() => {
    const el = dialog.current;
    if (el !== null && !el.open) el.showModal();
    return () => el?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      aria-labelledby={heading}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id={heading}>{title}</h2>
      {children}
      <ErrorNote error={error} title={failed} />
      <div className="row">
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          {confirm}
        </button>
        {/* biome-ignore lint/a11y/noAutofocus: the dialog opens on Cancel, the choice that changes nothing */}
        <button type="button" autoFocus onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
};
