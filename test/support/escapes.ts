// What a stranger may put in a field to act on a terminal, in every form it may take: C0, C1
// (U+0080–U+009F, among them the 8-bit CSI U+009B and OSC U+009D), and the 7-bit OSC and CSI
// sequences; and the check that a printed text holds none of them raw.

export const ESCAPE_FORMS: ReadonlyArray<readonly [name: string, form: string]> = [
  ['C0', 'a\u0007b\u0008c\u000d\u0000d'],
  ['C1 CSI (U+009B)', '\u009b2J\u009b31m'],
  ['C1 OSC (U+009D) and ST (U+009C)', '\u009d0;evil\u009c'],
  ['OSC title', '\u001b]0;evil\u0007'],
  ['OSC hyperlink', '\u001b]8;;http://evil.example/\u001b\\click\u001b]8;;\u001b\\'],
  ['CSI clear screen', '\u001b[2J\u001b[H'],
  ['CSI colour', '\u001b[31mred\u001b[0m'],
  ['DEL and bidi override', 'x\u007fy\u202eevil'],
  ['zero-width and format characters', 'S\u200bT\u2060O\ufeffP\u00ad'],
];

/** Whether text holds anything a terminal would act on (a line feed aside). */
export function hasControl(text: string): boolean {
  return /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff\u00ad]/.test(text);
}

/** The first raw control character in text, as U+XXXX, for a failing assertion's message. */
export function firstControl(text: string): string {
  const m = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff\u00ad]/.exec(text);
  return m === null ? 'none' : `U+${(m[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 30), m.index + 10))}`;
}
