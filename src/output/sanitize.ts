/**
 * Whether a format character at `at` is part of what it sits in: an emoji that shows as one
 * picture, or a word of a joining script. Its patterns are written here, not at the top of the
 * file, so that only text holding such a character builds them: V8 builds a pattern's Unicode
 * property sets when its literal is first evaluated, and these with showControls's took ~8 M
 * instructions of every `send --dry-run` (docs/performance-history.md: "What start-up costs").
 */
function partOfEmoji(c: string, text: string, at: number): boolean {
  const cp = c.codePointAt(0) ?? 0;
  // Letters of the scripts whose spelling uses the zero-width non-joiner and joiner (Persian's
  // می‌خواهم, a Devanagari half form): there, between two such letters or marks, they are part of
  // the word, not a hidden character. Between Latin letters they stay visible (ST<U+200C>OP is not
  // STOP).
  const joining = /^[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]$/u;
  if ((cp === 0x200c || cp === 0x200d) && joining.test(text.charAt(at - 1)) && joining.test(text.charAt(at + 1))) return true;
  const before = text.slice(Math.max(0, at - 40), at);
  // An emoji before a joiner, with its presentation selector and skin tone, and one after it.
  if (cp === 0x200d) return /\p{Extended_Pictographic}(?:\u{FE0F}|[\u{1F3FB}-\u{1F3FF}])*$/u.test(before) && /^\p{Extended_Pictographic}/u.test(text.slice(at + 1, at + 3));
  // A subdivision flag (England's: a black flag, tags, a cancel tag).
  if (cp >= 0xe0020 && cp <= 0xe007e) return /\u{1F3F4}[\u{E0020}-\u{E007E}]*$/u.test(before) && /^[\u{E0020}-\u{E007E}]*\u{E007F}/u.test(text.slice(at, at + 40));
  if (cp === 0xe007f) return /\u{1F3F4}[\u{E0020}-\u{E007E}]+$/u.test(before);
  return false;
}

/** `<U+001B>`: how msgr writes a character it will not print. */
function codePoint(c: string): string {
  return `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * The one way msgr shows text it did not write (a server's answer, an event's fields, a reply, a
 * CSV cell, a file name) to people: what a terminal would act on or would not show made visible
 * as `<U+001B>` (docs/contract.md: "Streams"). Not stripped: stripping would hide part of what was
 * said or will be sent. Once the escape character is visible, what followed it (`[2J`,
 * `]0;title`) is plain text, so no sequence of any form (CSI, OSC, C1) can move the cursor, clear
 * the screen, retitle the window or show text in another order, and no invisible character can
 * make two different texts look the same. A joiner inside an emoji (a family, a flag) stays:
 * there it draws one picture. Idempotent: its output holds none of these characters.
 */
export function showControls(text: string): string {
  // Printable ASCII and line feeds hold none of them: most text never builds the pattern below
  // (see partOfEmoji).
  if (!/[^\n\x20-\x7e]/.test(text)) return text;
  // What is made visible: C0 but the line feed, DEL, C1 (U+009B is the 8-bit CSI), every format
  // character (bidirectional controls, zero-width spaces and joiners, the soft hyphen, the BOM,
  // tags), the line and paragraph separators, lone surrogates, and the letters that show as
  // nothing (the Hangul fillers, the combining grapheme joiner).
  const shown = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u115f\u3164\uffa0\p{Cf}\p{Zl}\p{Zp}\p{Cs}]|[\u034f\u1160]/gu;
  return text.replace(shown, (c: string, at: number) => (partOfEmoji(c, text, at) ? c : codePoint(c)));
}

/**
 * A stranger's text quoted inside a line of msgr's (`reply "STOP<U+200B>"`): shown as
 * showControls shows it, between double quotes, with a quote or backslash in it escaped, so
 * that the text cannot seem to end early and put words in msgr's mouth.
 */
export function quoted(text: string): string {
  return `"${showControls(text).replace(/["\\]/g, (c) => `\\${c}`)}"`;
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

/**
 * Names of headers and query parameters that carry a secret (docs/events.md: "The events file"):
 * never saved by the listener, never shown.
 */
const SECRET_NAME = /authorization|cookie|token|secret|password|passwd|api[-_]?key|credential|session/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Query parameters whose value is hidden where a URL is shown: the secret names above, and the
 * short ones URLs use for keys and signatures. Wider than what the listener drops from events
 * (signatures are kept there, for the app to check), as showing is never needed.
 */
const SHOWN_SECRET = /^(key|sig|signature|auth|pass|pwd|code)$/i;

const HIDDEN = '***';

function maskParams(params: string): string {
  return params
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // Shown as written.
      }
      return isSecretName(name) || SHOWN_SECRET.test(name) ? `${pair.slice(0, eq)}=${HIDDEN}` : pair;
    })
    .join('&');
}

/**
 * The one rule for showing a URL (a proxy, a --forward-to app, a base URL, a webhook URL): the
 * password of its user part and the values of query parameters named like secrets become `***`;
 * `hidePath` also hides the path and query (a webhook URL's path may hold a listener's token).
 * Works on the text as given, so a URL that does not parse is masked too, and one that does is
 * shown as written, not as the URL parser rewrites it.
 */
export function maskUrl(url: string | URL, options: { readonly hidePath?: boolean } = {}): string {
  const text = typeof url === 'string' ? url : url.href;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? '';
  const rest = text.slice(scheme.length);
  // The user part ends at the last @ of the authority, which ends at the first / ? # or \. A
  // password holding an unencoded / ? or # makes the URL unparsable: then it is taken up to the
  // last @ of all, so that no part of such a password is shown.
  let parses = true;
  try {
    new URL(text);
  } catch {
    parses = false;
  }
  const authorityEnd = rest.search(/[/?#\\]/);
  const at = scheme === '' ? -1 : parses ? (authorityEnd < 0 ? rest : rest.slice(0, authorityEnd)).lastIndexOf('@') : rest.lastIndexOf('@');
  let user = '';
  let hostAndPath = rest;
  if (at >= 0) {
    const userinfo = rest.slice(0, at);
    const colon = userinfo.indexOf(':');
    user = `${colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:${HIDDEN}`}@`;
    hostAndPath = rest.slice(at + 1);
  }
  if (options.hidePath === true) {
    const end = hostAndPath.search(/[/?#\\]/);
    const host = end < 0 ? hostAndPath : hostAndPath.slice(0, end);
    const tail = end < 0 ? '' : hostAndPath.slice(end);
    return showControls(`${scheme}${user}${host}${tail === '' || tail === '/' ? tail : '/…'}`);
  }
  const hash = hostAndPath.indexOf('#');
  const beforeHash = hash < 0 ? hostAndPath : hostAndPath.slice(0, hash);
  const fragment = hash < 0 ? '' : `#${maskParams(hostAndPath.slice(hash + 1))}`;
  const q = beforeHash.indexOf('?');
  const shown = q < 0 ? beforeHash : `${beforeHash.slice(0, q)}?${maskParams(beforeHash.slice(q + 1))}`;
  return showControls(`${scheme}${user}${shown}${fragment}`);
}
