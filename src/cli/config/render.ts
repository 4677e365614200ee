import type { FieldChange, Step } from './steps.ts';

/** A plan as `plan` prints it: one line per step (`+` create, `~` change, `-/+` replace, `-`
 *  delete) and one per field, secrets as `(sensitive)`. */

const SIGN = { create: '+', change: '~', replace: '-/+', delete: '-' } as const;

const shown = (value: unknown, sensitive: boolean): string =>
  value === undefined ? '(unset)' : sensitive ? '(sensitive)' : JSON.stringify(value);

const fieldLine = (f: FieldChange, created: boolean): string =>
  created
    ? `      ${f.field} = ${shown(f.after, f.sensitive)}`
    : `      ${f.field}: ${shown(f.before, f.sensitive)} → ${shown(f.after, f.sensitive)}`;

/** What a step is, in words: `monitor "checkout-api" in shop`. */
export const stepTitle = (step: Step): string =>
  step.kind === 'project'
    ? `project "${step.name}"`
    : SETTINGS.has(step.kind)
      ? `${step.kind} of ${step.project}`
      : `${step.kind} "${step.name}" in ${step.project}`;
const SETTINGS = new Set(['masking', 'retention', 'anomaly settings']);

export const counts = (steps: readonly Step[]) => ({
  create: steps.filter((s) => s.action === 'create').length,
  change: steps.filter((s) => s.action === 'change').length,
  replace: steps.filter((s) => s.action === 'replace').length,
  delete: steps.filter((s) => s.action === 'delete').length,
});

export const summary = (steps: readonly Step[]): string => {
  const c = counts(steps);
  return `${c.create} to create, ${c.change} to change, ${c.replace} to replace, ${c.delete} to delete`;
};

export const renderPlan = (steps: readonly Step[]): string => {
  if (steps.length === 0) return 'No changes: the API holds what the file says.\n';
  const lines: string[] = [];
  for (const step of steps) {
    lines.push(`  ${SIGN[step.action]} ${stepTitle(step)}${step.note ? ` (${step.note})` : ''}`);
    for (const f of step.fields) lines.push(fieldLine(f, step.action === 'create'));
  }
  return `${lines.join('\n')}\n\nPlan: ${summary(steps)}.\n`;
};
