// API keys live in the URL path ({base_url}/v3/<KEY>). Everything the harness prints or writes goes
// through these helpers, so a key can appear in no report, log line or metric.

const KEY_IN_PATH = /\/v3\/[^/?#\s"'<>]+/g;
const secrets = new Set<string>();

/** Remembers a secret so that redact() removes it from any text, wherever it shows up. */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4) secrets.add(secret);
}

/** Registers the key segment of a /v3/<KEY> URL (and any userinfo) as secrets. */
export function registerUrlSecrets(url: string): void {
  const key = /\/v3\/([^/?#]+)/.exec(url)?.[1];
  registerSecret(key && decodeURIComponent(key));
  registerSecret(key);
  try {
    const u = new URL(url);
    registerSecret(u.password);
    registerSecret(u.username);
    for (const v of u.searchParams.values()) registerSecret(v);
  } catch {
    // not a URL: nothing more to learn from it
  }
}

/** `https://host/v3/abc` -> `https://host/v3/<redacted>`; also strips userinfo and query values. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const cleanPath = u.pathname.replace(KEY_IN_PATH, '/v3/<redacted>');
    const query = [...u.searchParams.keys()].map((k) => `${k}=<redacted>`).join('&');
    return `${u.protocol}//${u.host}${cleanPath}${query ? `?${query}` : ''}`;
  } catch {
    return redact(url);
  }
}

/** Removes every registered secret, and any /v3/<segment>, from a text. */
export function redact(text: string): string {
  let out = text.replace(KEY_IN_PATH, '/v3/<redacted>');
  for (const s of secrets) out = out.split(s).join('<redacted>');
  return out;
}
