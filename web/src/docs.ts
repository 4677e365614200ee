import SwaggerUIBundle from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import 'swagger-ui-dist/swagger-ui.css';
import './docs.css';

/** `/docs`: the API's reference, Swagger UI rendering `/v1/openapi.json`. A page of its own
 *  (docs/index.html) that shares no code with the dashboard, so the dashboard's bundle never
 *  carries Swagger UI; it runs under the dashboard's CSP (no inline script or style, no eval).
 *  Public, as the description is. */

/** The dashboard's session in this tab, as auth.tsx stores it: its token is set for "Try it
 *  out" (test/web/docs.test.ts signs in and checks it is). */
const sessionToken = (): string | null => {
  try {
    const stored = JSON.parse(sessionStorage.getItem('watchlog.session') ?? 'null') as {
      token?: unknown;
      expires_at?: unknown;
    } | null;
    return typeof stored?.token === 'string' &&
      typeof stored.expires_at === 'string' &&
      Date.parse(stored.expires_at) > Date.now()
      ? stored.token
      : null;
  } catch {
    return null;
  }
};

const ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  domNode: document.getElementById('reference')!,
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  onComplete: () => {
    const token = sessionToken();
    if (token !== null) ui.preauthorizeApiKey('bearerAuth', token);
  },
});
