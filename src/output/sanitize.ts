/**
 * Strips control characters (C0 except tab and newline, DEL, C1, and ANSI escape sequences)
 * from server-supplied text before it reaches a terminal (docs/contract.md: "Streams"). A hostile or
 * broken server must not be able to move the cursor or retitle the window.
 */
export function stripControl(text: string): string {
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g, '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/**
 * Control characters (C0 but the line feed, DEL, C1) and the bidirectional overrides made visible
 * as `<U+001B>`: for text shown to say what will be sent (a preview), where stripping them would
 * hide part of the message, and printing them would let a cell recolour the terminal, move the
 * cursor or show its text in another order.
 */
export function showControls(text: string): string {
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`);
}

/** Masks a secret to its last 4 characters (docs/contract.md: "Security"). */
export function maskSecret(secret: string): string {
  if (secret.length <= 4) return '****';
  return `****${secret.slice(-4)}`;
}

/** Keys at least this long are masked wherever they occur; shorter ones only where they stand alone. */
const MASK_EVERYWHERE = 12;
const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * Replaces the secret in text with its masked form. A real API key is long and random, so every
 * occurrence is masked. A short one (a test key such as "acce") would also match inside ordinary
 * words ("accepted"), so it is masked only where it is not part of a longer run of letters and
 * digits: wherever a server could echo it as a value.
 */
export function redact(text: string, secret: string | undefined): string {
  if (secret === undefined || secret.length === 0) return text;
  const masked = maskSecret(secret);
  if (secret.length >= MASK_EVERYWHERE) return text.split(secret).join(masked);
  let out = '';
  let from = 0;
  for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
    const end = at + secret.length;
    const glued = (at > 0 && isWordChar(text.charCodeAt(at - 1)) && isWordChar(secret.charCodeAt(0)))
      || (end < text.length && isWordChar(text.charCodeAt(end)) && isWordChar(secret.charCodeAt(secret.length - 1)));
    if (glued || at < from) continue;
    out += text.slice(from, at) + masked;
    from = end;
  }
  return out + text.slice(from);
}

/** The same for a parsed JSON value (a server may echo the key back in its body). */
export function redactJson(value: unknown, secret: string | undefined): unknown {
  if (value === undefined || secret === undefined || secret.length === 0) return value;
  const text = JSON.stringify(value);
  return text.includes(secret) ? (JSON.parse(redact(text, secret)) as unknown) : value;
}
