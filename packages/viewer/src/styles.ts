/** The component's own styles. Every colour, the font, the radius and the spacing come from
 *  custom properties a host page sets on the element (README: Theming); parts (`::part`) reach
 *  the toolbar, table, pager and detail. */
export const STYLES = `
:host {
  display: block;
  color-scheme: light dark;
  font-family: var(--watchlog-font-family, system-ui, -apple-system, 'Segoe UI', sans-serif);
  font-size: var(--watchlog-font-size, 14px);
  color: var(--watchlog-color, CanvasText);
  background: var(--watchlog-background, Canvas);
  --_border: var(--watchlog-border, color-mix(in srgb, currentColor 20%, transparent));
  --_muted: var(--watchlog-muted, color-mix(in srgb, currentColor 65%, transparent));
  --_accent: var(--watchlog-accent, #2563eb);
  --_radius: var(--watchlog-radius, 6px);
  --_gap: var(--watchlog-spacing, 8px);
}
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
.root { display: grid; gap: var(--_gap); }
form { display: flex; flex-wrap: wrap; gap: var(--_gap); align-items: end; }
label { display: grid; gap: 2px; font-size: 0.85em; color: var(--_muted); }
label.search { flex: 1 1 16em; }
input, select, button {
  font: inherit; color: inherit; background: var(--watchlog-input-background, transparent);
  border: 1px solid var(--_border); border-radius: var(--_radius); padding: 4px 8px; min-height: 2.2em;
}
button { cursor: pointer; }
button.primary {
  background: var(--_accent); color: var(--watchlog-accent-contrast, #fff); border-color: var(--_accent);
}
button:disabled { opacity: 0.5; cursor: default; }
:focus-visible { outline: 2px solid var(--watchlog-focus, var(--_accent)); outline-offset: 1px; }
.status { margin: 0; color: var(--_muted); min-height: 1.4em; }
.status.error { color: var(--watchlog-error, #b42318); }
.scroll { overflow-x: auto; border: 1px solid var(--_border); border-radius: var(--_radius); }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--_border); white-space: nowrap; }
th { font-weight: 600; font-size: 0.85em; color: var(--_muted); }
tbody tr { cursor: pointer; }
tbody tr:hover, tbody tr[aria-selected='true'] {
  background: var(--watchlog-row-hover, color-mix(in srgb, var(--_accent) 8%, transparent));
}
td.path {
  max-width: 28em; overflow: hidden; text-overflow: ellipsis;
  font-family: var(--watchlog-mono, ui-monospace, monospace);
}
td button.open {
  border: 0; padding: 0; min-height: 0; background: none; color: inherit; text-decoration: underline dotted;
}
.badge {
  display: inline-block; padding: 0 6px; border-radius: 999px; font-size: 0.85em; border: 1px solid currentColor;
}
.badge.ok { color: var(--watchlog-success, #067647); }
.badge.moved { color: var(--_muted); }
.badge.refused { color: var(--watchlog-warning, #b54708); }
.badge.failed { color: var(--watchlog-error, #b42318); }
nav { display: flex; gap: var(--_gap); align-items: center; justify-content: flex-end; }
section.detail {
  border: 1px solid var(--_border); border-radius: var(--_radius); padding: var(--_gap) calc(2 * var(--_gap));
}
section.detail header { display: flex; justify-content: space-between; align-items: center; gap: var(--_gap); }
section.detail h2 { font-size: 1.05em; margin: 0; }
dl { display: grid; grid-template-columns: minmax(8em, max-content) 1fr; gap: 4px 16px; margin: var(--_gap) 0; }
dt { color: var(--_muted); }
dd { margin: 0; overflow-wrap: anywhere; }
pre {
  margin: 0; white-space: pre-wrap; font-family: var(--watchlog-mono, ui-monospace, monospace); font-size: 0.9em;
}
.visually-hidden {
  position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;
}
@media (max-width: 640px) { td.agent, th.agent, td.service, th.service { display: none; } }
`;
