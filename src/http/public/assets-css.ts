/** The public pages' stylesheet (served by assets.ts under a hashed name). Colours are
 *  GitHub Primer's, chosen for contrast: text at least 4.5:1 and bars at least 3:1 on their
 *  background, in light and in dark. Day bars share the row's width, so 90 of them fit a wide
 *  screen; under 40rem only the last 30 show (the figure beside them still counts all). */
export const STATUS_CSS_TEXT = `:root {
  color-scheme: light dark;
  --bg: #ffffff;
  --fg: #1f2328;
  --muted: #59636e;
  --border: #d1d9e0;
  --surface: #f6f8fa;
  --link: #0969da;
  --ok: #1a7f37;
  --warn: #9a6700;
  --bad: #cf222e;
  --maint: #0969da;
  --none: #c8d1da;
  --focus: #0969da;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117;
    --fg: #e6edf3;
    --muted: #9198a1;
    --border: #3d444d;
    --surface: #151b23;
    --link: #4493f8;
    --ok: #3fb950;
    --warn: #d29922;
    --bad: #f85149;
    --maint: #4493f8;
    --none: #3d444d;
    --focus: #4493f8;
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0;
  background: var(--bg);
  color: var(--fg);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  overflow-wrap: anywhere;
}
a { color: var(--link); text-underline-offset: 0.15em; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 2px; }
main:focus { outline: none; }
h1, h2, h3, h4 { line-height: 1.25; margin: 0; }
h1 { font-size: 1.75rem; margin: 1.5rem 0 0.5rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 0.75rem; }
h3 { font-size: 1.0625rem; }
h4 { font-size: 1rem; font-weight: 600; }
p { margin: 0.25rem 0; }
.wrap { max-width: 56rem; margin: 0 auto; padding: 0 1rem; }
.vh {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; border: 0;
}
.skip { position: absolute; left: 0.5rem; top: -3rem; padding: 0.5rem 0.75rem; background: var(--bg); z-index: 1; }
.skip:focus { top: 0.5rem; }
.top { border-bottom: 1px solid var(--border); background: var(--surface); }
.top__inner { display: flex; align-items: center; min-height: 3.25rem; }
.brand { font-weight: 600; font-size: 1.0625rem; }
.brand a { color: var(--fg); text-decoration: none; }
.brand a:hover { text-decoration: underline; }
.lead { color: var(--muted); }
.empty { color: var(--muted); }
.banner {
  margin: 1.25rem 0 0; padding: 1rem 1.25rem; border-radius: 0.5rem;
  color: #ffffff; background: #1a7f37;
}
.banner h2 { margin: 0; font-size: 1.25rem; color: inherit; }
.banner p { margin: 0.25rem 0 0; }
.banner--maintenance { background: #0969da; }
.banner--degraded { background: #9a6700; }
.banner--partial_outage { background: #bc4c00; }
.banner--major_outage { background: #cf222e; }
.group { margin: 1rem 0 0; border: 1px solid var(--border); border-radius: 0.5rem; overflow: hidden; }
.group > h3 { padding: 0.625rem 1rem; background: var(--surface); border-bottom: 1px solid var(--border); }
.monitors { list-style: none; margin: 0; padding: 0; }
.monitor { padding: 0.75rem 1rem; }
.monitor + .monitor { border-top: 1px solid var(--border); }
.monitor__head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0.25rem 1rem; }
.state { margin: 0; font-weight: 600; display: inline-flex; align-items: baseline; gap: 0.375rem; flex-wrap: wrap; }
.state__dot { width: 0.625rem; height: 0.625rem; border-radius: 50%; background: currentColor; align-self: center; }
.state--operational { color: var(--ok); }
.state--down { color: var(--bad); }
.state--maintenance { color: var(--maint); }
.state--pending { color: var(--muted); }
.since { font-weight: 400; color: var(--muted); }
.bars { display: flex; gap: 2px; list-style: none; margin: 0.75rem 0 0; padding: 0; height: 2rem; }
.bars--long { gap: 1px; }
.day { flex: 1 1 0; min-width: 0; border-radius: 1px; background: var(--none); position: relative; }
.day--up { background: var(--ok); }
.day--partial { background: var(--warn); }
.day--down { background: var(--bad); }
.day--incident::before {
  content: ""; position: absolute; left: 0; right: 0; top: -5px; height: 3px;
  background: var(--fg); border-radius: 1px;
}
.day:hover { opacity: 0.75; }
.legend {
  display: flex; justify-content: space-between; gap: 0.5rem; margin: 0.25rem 0 0;
  font-size: 0.8125rem; color: var(--muted);
}
.legend__near { display: none; }
.legend__uptime { font-weight: 600; color: var(--fg); }
@media (max-width: 40rem) {
  .bars--long { gap: 2px; }
  .bars--long .day:nth-last-child(n + 31) { display: none; }
  .legend__far { display: none; }
  .legend__near { display: inline; }
  h1 { font-size: 1.5rem; }
}
.incident, .maintenance {
  margin: 0.75rem 0 0; padding: 0.75rem 1rem; border: 1px solid var(--border);
  border-left: 4px solid var(--muted); border-radius: 0.5rem;
}
.incident--minor { border-left-color: var(--warn); }
.incident--major { border-left-color: #bc4c00; }
.incident--critical { border-left-color: var(--bad); }
.maintenance { border-left-color: var(--maint); }
.incident__meta, .maintenance__when, .maintenance__affects { color: var(--muted); font-size: 0.875rem; }
.impact { font-weight: 600; }
.updates { list-style: none; margin: 0.5rem 0 0; padding: 0; }
.update { padding: 0.5rem 0 0; }
.update + .update { border-top: 1px dashed var(--border); margin-top: 0.5rem; }
.update__head { font-size: 0.875rem; color: var(--muted); }
.update__head strong { color: var(--fg); }
.update__message, .maintenance__text { white-space: pre-line; }
details { margin: 0.5rem 0 0; }
summary { cursor: pointer; color: var(--link); width: fit-content; }
.more { margin: 1rem 0 0; }
.pager { display: flex; flex-wrap: wrap; gap: 1rem; justify-content: space-between; margin: 1.5rem 0; }
.subscribe { margin-top: 2rem; }
.subscribe__form { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 0.75rem; margin: 0.5rem 0 0; }
.subscribe__form label { font-weight: 600; }
.subscribe__form input, .action button, .subscribe__form button {
  font: inherit; padding: 0.4375rem 0.75rem; border-radius: 0.375rem; border: 1px solid var(--border);
  background: var(--bg); color: var(--fg);
}
.subscribe__form input { flex: 1 1 16rem; min-width: 0; }
.subscribe__form button, .action button {
  cursor: pointer; font-weight: 600; color: #ffffff; background: #1f883d; border-color: #1f883d;
}
.subscribe__note { color: var(--muted); font-size: 0.875rem; margin-top: 0.5rem; }
.action { margin: 1rem 0 0; }
.foot {
  margin-top: 2.5rem; padding-top: 1rem; padding-bottom: 2rem; border-top: 1px solid var(--border);
  color: var(--muted); font-size: 0.875rem;
}
`;
