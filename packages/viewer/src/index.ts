/** `@watchlog/viewer`: importing it (or loading dist/watchlog-viewer.js with a script tag of
 *  `type="module"`) registers `<watchlog-audit-log>`. */
import { defineAuditLog } from './element.ts';

export { WatchlogAuditLog, defineAuditLog } from './element.ts';
export { ViewerError, type FullEvent, type ListAnswer, type ListItem } from './api.ts';

defineAuditLog();
