// Text from an endpoint is untrusted: an error message can be 200 KB long and carry ANSI escapes that clear
// the screen and print a forged verdict. Before such text reaches a terminal it is capped and its control
// characters (C0, C1, DEL, bidirectional overrides, line separators) are shown as escapes, never obeyed.
// HTML and XML writers escape on top of this (their own syntax), and XML also drops what XML 1.0 forbids.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One line, at most `max` characters (plus a note of how long it was), with every control character escaped. */
export function inert(text: string, max = 300): string {
  const line = showControls(text.length > max ? text.slice(0, max) : text);
  return text.length > max ? `${line}… (${text.length} chars)` : line;
}

/** At most `max` characters, an ellipsis where it was cut (no control characters shown: for text that is made inert later). */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Control characters shown as `\u001b`-style escapes; with `keepLines`, line breaks and tabs stay (for <pre>). */
export function showControls(text: string, keepLines = false): string {
  return text.replace(keepLines ? CONTROL_BUT_LINES : CONTROL, escape);
}

/** Several lines: each made inert on its own, line breaks kept. */
export function inertLines(text: string, maxLine = 500): string {
  return text
    .split('\n')
    .map((l) => inert(l, maxLine))
    .join('\n');
}

/** Text for an XML document: what XML 1.0 cannot hold (most C0 controls, lone surrogates, U+FFFE/F) escaped visibly. */
export function xmlSafe(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, escape);
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML or SVG, as content or a quoted attribute: its syntax escaped, control characters shown (a right-to-left override can make a reason read backwards), line breaks kept. */
export function escapeHtml(text: string): string {
  return showControls(text, true).replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

function escape(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
