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

const claim = (
  deps: CommandDeps,
  what: 'slug' | 'custom_domain',
  name: string,
  pageId: string,
  projectId: string,
  ctx: CommandContext,
) =>
  handle(
    deps,
    pageNameStream(what === 'slug' ? 'slug' : 'domain', name),
    pageNameDecider,
    { type: 'ClaimPageName', name, page_id: pageId, project_id: projectId, what, at: ctx.now().toISOString() },
    ctx,
  );

const release = (
  deps: CommandDeps,
  what: 'slug' | 'custom_domain',
  name: string,
  pageId: string,
  projectId: string,
  ctx: CommandContext,
) =>
  handle(
    deps,
    pageNameStream(what === 'slug' ? 'slug' : 'domain', name),
    pageNameDecider,
    { type: 'ReleasePageName', name, page_id: pageId, project_id: projectId, at: ctx.now().toISOString() },
    ctx,
  );

/** Claims the page's names first (a taken one is a 409 and nothing is created); a page that then
 *  fails to be created lets them go again. */
export const createStatusPage = async (deps: CommandDeps, input: StatusPageCreateInput, ctx: CommandContext) => {
  await requireProject(deps, input.project_id);
  const id = randomUUID();
  const settings = defaultsOf(input);
  await claim(deps, 'slug', settings.slug, id, input.project_id, ctx);
  try {
    if (settings.custom_domain !== null)
      await claim(deps, 'custom_domain', settings.custom_domain, id, input.project_id, ctx);
    const handled = await handle(
      deps,
      statusPageStream(id),
      statusPageDecider,
      { type: 'CreateStatusPage', page_id: id, project_id: input.project_id, settings, at: ctx.now().toISOString() },
      ctx,
    );
    return { ...handled, id };
  } catch (error) {
    await release(deps, 'slug', settings.slug, id, input.project_id, ctx);
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
  if (changes.slug !== undefined) await claim(deps, 'slug', changes.slug, id, projectId, ctx);
  if (changes.custom_domain) await claim(deps, 'custom_domain', changes.custom_domain, id, projectId, ctx);
  const handled = await handle(
    deps,
    statusPageStream(id),
    statusPageDecider,
    { type: 'UpdateStatusPage', changes, at: ctx.now().toISOString() },
    ctx,
    loaded,
  );
  if (changes.slug !== undefined) await release(deps, 'slug', current.slug, id, projectId, ctx);
  if (changes.custom_domain !== undefined && current.custom_domain !== null)
    await release(deps, 'custom_domain', current.custom_domain, id, projectId, ctx);
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
  if (page.settings !== null) {
    await release(deps, 'slug', page.settings.slug, id, page.projectId, ctx);
    if (page.settings.custom_domain !== null)
      await release(deps, 'custom_domain', page.settings.custom_domain, id, page.projectId, ctx);
  }
  return handled;
};
