// load.html's inline stylesheet, shared with the side-by-side page (side-by-side.ts): one look for both.
export const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1040px;padding:0 12px;color:#222}
.why{border-left:4px solid #999;background:#f7f7f7;padding:8px 12px;margin:12px 0}.why.fail{border-color:#d62728;color:#222}.why.pass{border-color:#2ca02c;color:#222}.why.measured{border-color:#1f77b4;color:#222}.why.incomplete{border-color:#ff7f0e}.why.inconclusive{border-color:#ff7f0e}
.why ul{margin:4px 0 0;padding-left:20px}.scroll{overflow-x:auto}.chart{overflow-x:auto}.chart svg{min-width:640px;max-width:100%;height:auto}
td.text,th.text{text-align:left;min-width:260px}
@media (max-width:600px){body{margin:12px auto;font-size:13px}h1{font-size:19px}td,th{padding:2px 3px}.scroll table{min-width:620px}}
h1{font-size:22px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;font-size:12px}td,th{border-bottom:1px solid #eee;padding:3px 4px;text-align:right}
td:first-child,th:first-child{text-align:left}.pass{color:#2ca02c}.fail{color:#d62728}.measured{color:#1f77b4}.inconclusive{color:#c85a00}.muted{color:#777}
svg text{font:11px system-ui,sans-serif;fill:#333}svg .small{font-size:10px}svg .axis{stroke:#999}svg .grid{stroke:#eee}
.legend span{margin-right:14px;white-space:nowrap}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
`;
