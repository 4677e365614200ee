import SwaggerUIBundle from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import 'swagger-ui-dist/swagger-ui.css';
import './docs.css';
import { refreshSession } from './refresh.ts';

/** `/docs`: the API's reference, Swagger UI rendering `/v1/openapi.json`. A page of its own
 *  (docs/index.html) that shares only the session renewal (refresh.ts) with the dashboard: its bundle never
 *  carries Swagger UI; it runs under the dashboard's CSP (no inline script or style, no eval).
 *  Public, as the description is. */

/** The dashboard's session in this browser, renewed through its refresh cookie: its token is set
 *  for "Try it out" (test/web/docs.test.ts signs in and checks it is). */
const session = refreshSession();

const ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  domNode: document.getElementById('reference')!,
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  onComplete: () => {
    void session.then((signedIn) => {
      if (signedIn !== null) ui.preauthorizeApiKey('bearerAuth', signedIn.token);
    });
  },
});
