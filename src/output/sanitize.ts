/**
 * Strips control characters (C0 except tab and newline, DEL, C1, and ANSI escape sequences)
 * from server-supplied text before it reaches a terminal (cli-contract: Output). A hostile or
 * broken server must not be able to move the cursor or retitle the window.
 */
export function stripControl(text: string): string {
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g, '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** Masks a secret to its last 4 characters (cli-contract: Security). */
export function maskSecret(secret: string): string {
  if (secret.length <= 4) return '****';
  return `****${secret.slice(-4)}`;
}

/** Replaces every occurrence of the secret in text with its masked form. */
export function redact(text: string, secret: string | undefined): string {
  if (secret === undefined || secret.length === 0) return text;
  return text.split(secret).join(maskSecret(secret));
}

/** The same for a parsed JSON value (a server may echo the key back in its body). */
export function redactJson(value: unknown, secret: string | undefined): unknown {
  if (value === undefined || secret === undefined || secret.length === 0) return value;
  const text = JSON.stringify(value);
  return text.includes(secret) ? (JSON.parse(redact(text, secret)) as unknown) : value;
}
