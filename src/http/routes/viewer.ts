import { randomUUID } from 'node:crypto';
import { keyExpired } from '../../domain/api-keys.ts';
import { viewerClaims } from '../../domain/viewer-token.ts';
import { recordViewerToken } from '../../commands/self-audit.ts';
import type { RouteDeps } from '../deps.ts';
import { signViewerToken, verifyViewerToken } from '../middleware/viewer-auth.ts';
import { HttpError } from '../middleware/errors.ts';
import { type Handlers, created } from '../operations/operation.ts';
import { embedCsp, embedPage } from '../public/embed.ts';
import { replyWith } from '../public/reply.ts';
import type { viewerOperations } from '../operations/viewer.ts';

/** The origins a project's browsers use: those its live API keys allow (a browser key names the
 *  product's pages). A project whose keys allow any origin names none: its viewer is read only on
 *  watchlog's own origin, never framed or read by a page anywhere. */
const projectOrigins = async (deps: RouteDeps, projectId: string, now: Date): Promise<string[]> =>
  (await deps.readModels.access.listApiKeys(projectId))
    .filter((key) => key.revoked_at === null && !keyExpired(key, now))
    .flatMap((key) => key.allowed_origins);

export const viewerHandlers: Handlers<typeof viewerOperations, RouteDeps> = {
  issueToken: async ({ resource: project, body, principal, command, ctx }, deps) => {
    const now = deps.now();
    const claims = viewerClaims(project.id, body, await projectOrigins(deps, project.id, now), now, randomUUID());
    const expiresAt = new Date(claims.exp * 1000).toISOString();
    await recordViewerToken(
      deps.commands,
      {
        actor: principal.actor,
        projectId: project.id,
        tokenId: claims.jti,
        tenantId: claims.tid,
        identifier: claims.idf,
        hidden: claims.hide,
        expiresAt,
        address: ctx.request.ip || 'unknown',
        requestId: ctx.state.correlationId,
        at: now,
      },
      command,
    );
    return created({
      token: signViewerToken(claims, deps.viewerKey),
      expires_at: expiresAt,
      tenant_id: claims.tid,
      identifier: claims.idf,
      hidden_fields: claims.hide,
      allowed_origins: claims.orig,
    });
  },

  // The page is answered whatever the token: the viewer on it says when it is expired or wrong.
  // Only a valid token's origins may frame it.
  embed: ({ query }, deps) => {
    const verified = query.token === undefined ? null : verifyViewerToken(query.token, deps.viewerKey, deps.now());
    const origins = verified !== null && 'grant' in verified ? verified.grant.origins : [];
    return {
      status: 200,
      body: embedPage(deps.embedAssets.has('viewer.js')),
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': embedCsp(origins),
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
        'X-Content-Type-Options': 'nosniff',
      },
    };
  },

  embedAsset: ({ ctx, params }, deps) => {
    const asset = deps.embedAssets.get(params.file);
    if (asset === undefined) throw new HttpError(404, 'not_found', 'not built: run npm run build');
    // A page elsewhere loads the viewer as a module script, which the browser fetches with CORS.
    const reply = replyWith(ctx, asset);
    return { ...reply, headers: { ...reply.headers, 'Access-Control-Allow-Origin': '*' } };
  },
};
