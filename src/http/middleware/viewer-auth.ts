import { isLeft } from 'fp-ts/lib/Either.js';
import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ViewerClaims, type ViewerGrant, grantOf } from '../../domain/viewer-token.ts';
import type { Principal } from './auth.ts';

/** Viewer tokens are JWTs signed with a key of their own, derived from the JWT secret: a user's
 *  token can never pass for one, nor one for a user's, whatever claims either carries. */
export const viewerKeyOf = (jwtSecret: string): Buffer =>
  createHmac('sha256', jwtSecret).update('watchlog viewer tokens v1').digest();

export const signViewerToken = (claims: ViewerClaims, key: Buffer): string =>
  jwt.sign(claims, key, { algorithm: 'HS256' });

/** Whether `token` claims to be a viewer token (unverified: only to route it to its check). */
export const looksLikeViewerToken = (token: string): boolean => {
  const payload = jwt.decode(token, { json: true });
  return payload !== null && payload.typ === 'viewer';
};

/** The grant of a viewer token signed with `key`, or why it is refused. */
export const verifyViewerToken = (
  token: string,
  key: Buffer,
  now: Date,
): { grant: ViewerGrant } | { refused: 'expired' | 'invalid' } => {
  let payload: unknown;
  try {
    payload = jwt.verify(token, key, { algorithms: ['HS256'], clockTimestamp: Math.floor(now.getTime() / 1000) });
  } catch (error) {
    return { refused: (error as { name?: unknown }).name === 'TokenExpiredError' ? 'expired' : 'invalid' };
  }
  const claims = ViewerClaims.decode(payload);
  return isLeft(claims) ? { refused: 'invalid' } : { grant: grantOf(claims.right) };
};

/** A viewer reads as an auditor of one project would, narrowed to its grant by the handlers that
 *  take viewer tokens; `mount` refuses it everywhere else. */
export const viewerPrincipal = (grant: ViewerGrant): Principal => ({
  userId: `viewer:${grant.tokenId}`,
  role: 'auditor',
  scope: { all: false, projectIds: [grant.projectId] },
  actor: `viewer:${grant.tokenId}`,
  viewer: grant,
});
