// The one reader of a duration on the command line: "90s", "10m", "1h30m" or plain seconds. The conformance
// --deadline and the load --duration both read it (pure: the k6 bundle imports it through load/shared/profiles.ts).

/**
 * The duration in milliseconds, or NaN when the text is not one. `wholeSeconds`: the seconds part takes no
 * fraction (a load test's duration is whole seconds; a conformance deadline may be "1.5s").
 */
export function durationMs(text: string, opts: { wholeSeconds?: boolean } = {}): number {
  const pattern = opts.wholeSeconds ? /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$/ : /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s?)?$/;
  const m = pattern.exec(text.trim());
  if (!m || text.trim() === '') return NaN;
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
}
