import { randomUUID } from 'node:crypto';
import {
  assertStatusPageExists,
  changedFields,
  defaultsOf,
  pageNameDecider,
  statusPageDecider,
  type StatusPageCreateInput,
  type StatusPageUpdateInput,
} from '../domain/status-page.ts';
import { pageNameStream, statusPageStream } from '../domain/streams.ts';
import { handle, load, type CommandContext, type CommandDeps } from './handle.ts';
import { requireProject } from './projects.ts';

/** A page's name: its slug or its custom domain, each held in a stream of its own. */
interface PageName {
  what: 'slug' | 'custom_domain';
  name: string;
  pageId: string;
  projectId: string;
}

const onName = (deps: CommandDeps, n: PageName, command: 'ClaimPageName' | 'ReleasePageName', ctx: CommandContext) => {
  const fields = { name: n.name, page_id: n.pageId, project_id: n.projectId, at: ctx.now().toISOString() };
  return handle(
    deps,
    pageNameStream(n.what === 'slug' ? 'slug' : 'domain', n.name),
    pageNameDecider,
    command === 'ClaimPageName' ? { type: command, ...fields, what: n.what } : { type: command, ...fields },
    ctx,
  );
};

const namesOf = (
  settings: { slug: string; custom_domain: string | null },
  pageId: string,
  projectId: string,
): PageName[] => [
  { what: 'slug', name: settings.slug, pageId, projectId },
  ...(settings.custom_domain === null
    ? []
    : [{ what: 'custom_domain' as const, name: settings.custom_domain, pageId, projectId }]),
];

const claim = (deps: CommandDeps, n: PageName, ctx: CommandContext) => onName(deps, n, 'ClaimPageName', ctx);
const release = (deps: CommandDeps, n: PageName, ctx: CommandContext) => onName(deps, n, 'ReleasePageName', ctx);

/** Claims the page's names first (a taken one is a 409 and nothing is created); a page that then
 *  fails to be created lets go of those it claimed. */
export const createStatusPage = async (deps: CommandDeps, input: StatusPageCreateInput, ctx: CommandContext) => {
  await requireProject(deps, input.project_id);
  const id = randomUUID();
  const settings = defaultsOf(input);
  const claimed: PageName[] = [];
  try {
    for (const name of namesOf(settings, id, input.project_id)) {
      await claim(deps, name, ctx);
      claimed.push(name);
    }
    const handled = await handle(
      deps,
      statusPageStream(id),
      statusPageDecider,
      { type: 'CreateStatusPage', page_id: id, project_id: input.project_id, settings, at: ctx.now().toISOString() },
      ctx,
    );
    return { ...handled, id };
  } catch (error) {
    for (const name of claimed) await release(deps, name, ctx);
    throw error;
  }
};

/** A new slug or domain is claimed before the change and the old one let go after it. */
export const updateStatusPage = async (
  deps: CommandDeps,
  id: string,
  input: StatusPageUpdateInput,
  ctx: CommandContext,
) => {
  const loaded = await load(deps.log, statusPageStream(id), statusPageDecider);
  const current = assertStatusPageExists(loaded.state);
  const changes = changedFields(current, input);
  const projectId = loaded.state.projectId;
  if (changes.slug !== undefined) await claim(deps, { what: 'slug', name: changes.slug, pageId: id, projectId }, ctx);
  if (changes.custom_domain)
    await claim(deps, { what: 'custom_domain', name: changes.custom_domain, pageId: id, projectId }, ctx);
  const handled = await handle(
    deps,
    statusPageStream(id),
    statusPageDecider,
    { type: 'UpdateStatusPage', changes, at: ctx.now().toISOString() },
    ctx,
    loaded,
  );
  if (changes.slug !== undefined) await release(deps, { what: 'slug', name: current.slug, pageId: id, projectId }, ctx);
  if (changes.custom_domain !== undefined && current.custom_domain !== null)
    await release(deps, { what: 'custom_domain', name: current.custom_domain, pageId: id, projectId }, ctx);
  return handled;
};

export const deleteStatusPage = async (deps: CommandDeps, id: string, ctx: CommandContext) => {
  const handled = await handle(
    deps,
    statusPageStream(id),
    statusPageDecider,
    { type: 'DeleteStatusPage', at: ctx.now().toISOString() },
    ctx,
  );
  const page = handled.state;
  if (page.settings !== null)
    for (const name of namesOf(page.settings, id, page.projectId)) await release(deps, name, ctx);
  return handled;
};
