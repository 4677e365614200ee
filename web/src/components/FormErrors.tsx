import type { FieldErrors } from './form-errors.ts';
import { ErrorNote } from './ui.tsx';

/** Under a form's fields: what the server refused that no field shows, in words; or, when every
 *  message sits at its field, a line saying so. */
export const FormErrors = ({
  error,
  errors,
  shown,
  failed,
}: {
  error: unknown;
  errors: FieldErrors;
  shown: readonly string[];
  failed: string;
}) => {
  if (error === null || error === undefined) return null;
  const api = errors.api;
  if (api === null || api.details.length === 0 || errors.unplaced(shown).length > 0)
    return <ErrorNote error={error} title={failed} />;
  return (
    <p className="field-error" role="status">
      {failed}: correct the fields marked above.
    </p>
  );
};
