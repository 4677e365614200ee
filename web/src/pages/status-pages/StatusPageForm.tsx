import { type FormEvent, useId, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, type Monitor, type StatusPage } from '../../api.ts';
import { FormErrors } from '../../components/FormErrors.tsx';
import { describedBy, fieldErrors } from '../../components/form-errors.ts';
import { Field } from '../../components/ui.tsx';
import { GroupsEditor } from './GroupsEditor.tsx';
import { bodyOf, type PageValues, shownPaths, slugOf } from './page-values.ts';

/** A status page's settings: POST for a new one, PUT (every field) for one that exists. The
 *  server's 400 and 409 messages show beside the fields they name. */
export const StatusPageForm = ({
  projectId,
  editing,
  values,
  monitors,
  onChange,
  onSaved,
  onCancel,
}: {
  projectId: string;
  editing: StatusPage | null;
  values: PageValues;
  monitors: readonly Monitor[];
  onChange: (v: PageValues) => void;
  onSaved: (page: StatusPage) => void;
  onCancel: () => void;
}) => {
  const prefix = useId();
  const client = useQueryClient();
  // A new page's slug follows its title until the slug is typed in.
  const [slugTyped, setSlugTyped] = useState(editing !== null);
  const save = useMutation({
    mutationFn: (v: PageValues) =>
      editing === null
        ? call('POST /v1/status-pages', { body: { project_id: projectId, ...bodyOf(v) } })
        : call('PUT /v1/status-pages/:id', { params: { id: editing.id }, body: bodyOf(v) }),
    onSuccess: async (page) => {
      await client.invalidateQueries({ queryKey: ['status-pages'] });
      onSaved(page);
    },
  });
  const errors = fieldErrors(save.error);
  const set = (patch: Partial<PageValues>) => onChange({ ...values, ...patch });
  const id = (field: string) => `${prefix}-${field}`;
  const text = (
    field: 'title' | 'slug' | 'description' | 'custom_domain' | 'show_uptime_days',
    label: string,
    hint: string | undefined,
    input: { maxLength?: number; type?: string; min?: number; max?: number; inputMode?: 'numeric' } = {},
  ) => (
    <Field id={id(field)} label={label} error={errors.at(field)} {...(hint === undefined ? {} : { hint })}>
      <input
        id={id(field)}
        value={values[field]}
        onChange={(e) => {
          if (field === 'slug') setSlugTyped(true);
          if (field === 'title' && !slugTyped) set({ title: e.target.value, slug: slugOf(e.target.value) });
          else set({ [field]: e.target.value });
        }}
        aria-invalid={errors.at(field) !== undefined}
        aria-describedby={describedBy(id(field), hint !== undefined, errors.at(field))}
        {...input}
      />
    </Field>
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(values);
  };
  const formTitle = editing === null ? 'New status page' : `Settings of ${editing.title}`;
  return (
    <form className="panel stack sp-form" onSubmit={submit} noValidate aria-label={formTitle}>
      <h2>{editing === null ? 'Settings' : formTitle}</h2>
      <div className="sp-form-grid">
        {text('title', 'Title', undefined, { maxLength: 200 })}
        {text('slug', 'Slug', '3 to 63 lower-case letters, digits or dashes: the page is at /status/<slug>.', {
          maxLength: 63,
        })}
      </div>
      <Field id={id('description')} label="Description (optional)" error={errors.at('description')}>
        <textarea
          id={id('description')}
          value={values.description}
          maxLength={2000}
          onChange={(e) => set({ description: e.target.value })}
          aria-invalid={errors.at('description') !== undefined}
          aria-describedby={describedBy(id('description'), false, errors.at('description'))}
        />
      </Field>
      <GroupsEditor
        prefix={prefix}
        groups={values.groups}
        monitors={monitors}
        errors={errors}
        onChange={(groups) => set({ groups })}
      />
      <div className="sp-form-grid">
        {text('show_uptime_days', 'Days of uptime shown', 'From 1 to 90: one bar per day.', {
          type: 'number',
          min: 1,
          max: 90,
          inputMode: 'numeric',
        })}
        {text(
          'custom_domain',
          'Custom domain (optional)',
          'A host name such as status.example.com: point its DNS at this watchlog and the page answers at its /.',
          { maxLength: 253 },
        )}
      </div>
      <div className="field">
        <label className="checkbox">
          <input
            type="checkbox"
            checked={values.auto_incidents}
            onChange={(e) => set({ auto_incidents: e.target.checked })}
          />{' '}
          Automatic incidents: open one when a monitor of the page is confirmed DOWN, resolve it when it is UP again
        </label>
        {errors.at('auto_incidents') !== undefined && (
          <small className="field-error" role="alert">
            {errors.at('auto_incidents')}
          </small>
        )}
      </div>
      <div className="field">
        <label className="checkbox">
          <input type="checkbox" checked={values.published} onChange={(e) => set({ published: e.target.checked })} />
          Published: anyone may read the page at /status/{values.slug.trim() || '<slug>'}
        </label>
        {errors.at('published') !== undefined && (
          <small className="field-error" role="alert">
            {errors.at('published')}
          </small>
        )}
      </div>
      <FormErrors
        error={save.error}
        errors={errors}
        shown={shownPaths(values)}
        failed={editing === null ? 'The status page was not created' : 'The status page was not saved'}
      />
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : editing === null ? 'Create status page' : 'Save changes'}
        </button>
        <button type="button" onClick={onCancel}>
          {editing === null ? 'Cancel' : 'Back to the list'}
        </button>
      </div>
    </form>
  );
};
