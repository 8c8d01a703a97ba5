// The report's inline stylesheet: light theme, system fonts, one colour per outcome (kept in CSS
// variables so the matrix squares, pills and cards always agree).
export const STYLE = `
:root {
  --pass: #1a7f37; --pass-bg: #dafbe1;
  --fail: #cf222e; --fail-bg: #ffebe9;
  --advisory: #bf8700; --advisory-bg: #fff8c5;
  --skip: #8c959f; --skip-bg: #f3f4f6;
  --inconclusive: #8250df; --inconclusive-bg: #f5efff;
  --expected: #57606a; --expected-bg: #eaeef2; --unexpected: #bc4c00; --unexpected-bg: #fff1e5;
  --incomplete: #6639ba;
  --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #ffffff; --page: #f6f8fa;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
html { scroll-padding-top: 72px; }
body { margin: 0; background: var(--page); color: var(--ink); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
a { color: #0969da; text-decoration: none; }
a:hover { text-decoration: underline; }
h2 { font-size: 18px; margin: 0 0 12px; display: flex; align-items: baseline; gap: 10px; }
h2 .n { color: var(--muted); font-weight: 400; font-size: 14px; }
h3 { font-size: 15px; margin: 6px 0; }
.muted { color: var(--muted); }
.wrap { max-width: 1280px; margin: 0 auto; padding: 0 24px; }

.hero { background: var(--panel); border-bottom: 1px solid var(--line); padding: 24px 0 20px; }
.hero .wrap { display: flex; gap: 28px; align-items: flex-start; }
.badge { flex: none; min-width: 150px; padding: 18px 22px; border-radius: 14px; color: #fff; text-align: center; font-weight: 800; font-size: 34px; letter-spacing: .06em; line-height: 1.1; }
.badge small { display: block; font-size: 12px; font-weight: 600; letter-spacing: .04em; opacity: .9; margin-top: 6px; }
.v-pass { background: var(--pass); } .v-fail { background: var(--fail); } .v-inconclusive { background: var(--inconclusive); } .v-incomplete { background: var(--incomplete); }
.hero .about { flex: 1; min-width: 0; }
.hero h1 { margin: 0; font-size: 22px; }
.endpoint { font-family: var(--mono); font-size: 14px; margin: 2px 0 14px; word-break: break-all; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); gap: 8px 24px; margin: 0; }
.facts div { min-width: 0; }
.facts dt { font-size: 11px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.banner { background: #fbefff; border-bottom: 1px solid #d8b9ff; color: var(--incomplete); padding: 10px 0; font-weight: 600; }
.banner.not-served { background: var(--expected-bg); border-bottom-color: var(--line); color: var(--ink); }
.banner.not-served.fatal { background: var(--fail-bg); border-bottom-color: #ffcecb; color: var(--fail); }
.banner.not-served ul { margin: 6px 0 0; padding-left: 20px; font-weight: 400; color: var(--ink); }

.bar { position: sticky; top: 0; z-index: 10; background: rgba(255,255,255,.94); backdrop-filter: blur(6px); border-bottom: 1px solid var(--line); }
.bar .wrap { display: flex; align-items: center; gap: 8px; padding-top: 8px; padding-bottom: 8px; flex-wrap: wrap; }
.chip { color: #fff; font-weight: 700; border-radius: 999px; padding: 2px 12px; font-size: 13px; letter-spacing: .04em; }
.stat { display: inline-flex; align-items: baseline; gap: 5px; padding: 3px 10px; border-radius: 8px; background: var(--page); border: 1px solid var(--line); color: var(--ink); }
.stat b { font-size: 16px; }
.stat.o-fail b { color: var(--fail); } .stat.o-advisory b { color: var(--advisory); } .stat.o-pass b { color: var(--pass); }
.stat.o-skip b { color: var(--skip); } .stat.o-inconclusive b { color: var(--inconclusive); }
.stat.o-expected b { color: var(--expected); } .stat.o-unexpected-pass b { color: var(--unexpected); }
.stat.zero { opacity: .55; }
.bar .spacer { flex: 1; }

main.wrap { padding-top: 24px; padding-bottom: 48px; }
section { background: var(--panel); border: 1px solid var(--line); border-radius: 12px; padding: 18px 20px; margin-bottom: 20px; }
.legend { display: flex; gap: 14px; flex-wrap: wrap; color: var(--muted); font-size: 12px; margin-bottom: 12px; }
.legend span { display: inline-flex; align-items: center; gap: 5px; }

table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid #eaeef2; vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
tr:last-child > * { border-bottom: 0; }
.matrix th[scope=row] { font-family: var(--mono); font-size: 13px; color: var(--ink); white-space: nowrap; font-weight: 600; }
.checks td:last-child { width: 100%; }
.matrix .tally { white-space: nowrap; color: var(--muted); font-size: 12px; }
.squares { display: flex; flex-wrap: wrap; gap: 3px; }
.sq { display: inline-block; width: 16px; height: 16px; border-radius: 4px; background: var(--skip); }
a.sq:hover { outline: 2px solid var(--ink); outline-offset: 1px; text-decoration: none; }
.sq.o-pass { background: var(--pass); } .sq.o-fail { background: var(--fail); } .sq.o-advisory { background: var(--advisory); }
.sq.o-skip { background: var(--skip); } .sq.o-inconclusive { background: var(--inconclusive); }
.sq.o-expected { background: repeating-linear-gradient(45deg, var(--fail), var(--fail) 3px, var(--expected-bg) 3px, var(--expected-bg) 6px); } .sq.o-unexpected-pass { background: var(--unexpected); }
.scroll { overflow-x: auto; }
.coverage { width: auto; }
.coverage td, .coverage th { text-align: center; border: 1px solid #eaeef2; padding: 5px 8px; }
.coverage th[scope=row] { text-align: left; }
.coverage td .sq { width: 20px; height: 20px; vertical-align: middle; }
.coverage td.none::after { content: "·"; color: #c5ccd3; }

.check { border: 1px solid var(--line); border-left: 5px solid var(--skip); border-radius: 10px; padding: 12px 16px; margin: 12px 0; background: var(--panel); }
.check.o-expected { border-left-color: var(--expected); } .check.o-unexpected-pass { border-left-color: var(--unexpected); }
.expectation { margin: 6px 0; padding: 6px 10px; border-radius: 6px; background: var(--expected-bg); }
.check.o-fail { border-left-color: var(--fail); } .check.o-advisory { border-left-color: var(--advisory); } .check.o-inconclusive { border-left-color: var(--inconclusive); }
.check:target { box-shadow: 0 0 0 3px #54aeff66; }
.check .head { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
/* Why it failed: first under the verdict, each reason whole. */
.why { border-left: 5px solid var(--fail); }
.why ol { margin: 0; padding-left: 22px; } .why li { margin: 6px 0; overflow-wrap: anywhere; }
a.pill { text-decoration: none; } a.pill:hover { text-decoration: underline; }
.pill { display: inline-block; border-radius: 999px; padding: 0 9px; font-size: 12px; font-weight: 600; border: 1px solid transparent; }
.pill.o-pass { color: var(--pass); background: var(--pass-bg); } .pill.o-fail { color: var(--fail); background: var(--fail-bg); }
.pill.o-advisory { color: #7d4e00; background: var(--advisory-bg); } .pill.o-skip { color: #59636e; background: var(--skip-bg); }
.pill.o-inconclusive { color: var(--inconclusive); background: var(--inconclusive-bg); }
.pill.o-expected { color: var(--expected); background: var(--expected-bg); } .pill.o-unexpected-pass { color: var(--unexpected); background: var(--unexpected-bg); }
.pill.plain { color: var(--muted); border-color: var(--line); }
.check .id { font-weight: 600; }
.check .dur { margin-left: auto; color: var(--muted); font-size: 12px; }
.reason { margin: 4px 0 10px; font-size: 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
.detail { display: grid; grid-template-columns: 90px 1fr; gap: 4px 12px; margin: 0 0 10px; }
.detail dt { color: var(--muted); font-size: 12px; padding-top: 3px; }
.detail dd { margin: 0; min-width: 0; }
pre { margin: 0; background: #f6f8fa; border: 1px solid #eaeef2; border-radius: 6px; padding: 8px 10px; overflow: auto; max-height: 320px; white-space: pre-wrap; overflow-wrap: anywhere; }
.detail pre { max-height: 160px; }
.exchange { margin-top: 8px; }
.exchange .meta { font-size: 12px; color: var(--muted); margin-bottom: 4px; }
.io { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.4fr); gap: 10px; }
.io figure { margin: 0; min-width: 0; }
.io figcaption { font-size: 11px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin-bottom: 2px; }
details > summary { cursor: pointer; color: var(--muted); margin-top: 6px; }
details.passed > summary { font-size: 15px; color: var(--ink); font-weight: 600; }
.list td:first-child { font-family: var(--mono); font-size: 12.5px; white-space: nowrap; }
.list.targets td:first-child { font-family: inherit; font-size: 13px; color: var(--muted); }
.list td.num { text-align: right; color: var(--muted); white-space: nowrap; }
.empty { color: var(--muted); margin: 0; }
.missing { color: var(--muted); font-style: italic; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 0 0 32px; }
@media (max-width: 800px) { .hero .wrap { flex-direction: column; } .io { grid-template-columns: 1fr; } }
/* A phone: each method of the matrix on its own lines (name and tally, then its squares), not one row cut at the edge. */
@media (max-width: 600px) {
  section { padding: 12px; }
  .matrix.checks tr { display: flex; flex-wrap: wrap; align-items: baseline; border-bottom: 1px solid #eaeef2; }
  .matrix.checks tr > * { border-bottom: 0; }
  .matrix.checks th[scope=row] { white-space: normal; overflow-wrap: anywhere; flex: 1 1 auto; padding-bottom: 2px; }
  .matrix.checks td.tally { padding-bottom: 2px; }
  .matrix.checks td:last-child { flex: 0 0 100%; padding-top: 2px; }
  .detail { grid-template-columns: 1fr; }
  .facts { grid-template-columns: 1fr 1fr; }
  /* The lists (judged share, reference, targets, passes) scroll sideways inside the page rather than being cut. */
  table.list { display: block; overflow-x: auto; }
}
`;
