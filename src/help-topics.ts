// The help topics, by name and summary: those written as docs pages (docs/help/<topic>.md; the
// build renders each for the terminal and defines them here, scripts/build/help-topics.mjs, so
// the page and `msgr help <topic>` are one text) and those written in code
// (commands/help/topics.ts). `msgr help`, its completion and the manual's index list them from
// here. Imported only when `msgr help` (or its completion) runs, and by `npm run docs`.

declare const __MSGR_HELP_TOPICS__: Readonly<Record<string, { readonly summary: string; readonly text: string }>> | undefined;

export const DOC_TOPICS: Readonly<Record<string, { readonly summary: string; readonly text: string }>> = typeof __MSGR_HELP_TOPICS__ === 'object' ? __MSGR_HELP_TOPICS__ : {};

export const TOPICS: ReadonlyArray<readonly [name: string, summary: string]> = [
  ['exit-codes', 'what each exit code means, and whether running again is safe'],
  ['environment', 'every environment variable msgr reads'],
  ['config', 'the files and folders msgr keeps, and how to move them'],
];

/** Every topic with its summary: the docs pages' first (docs/help/), then those of TOPICS. */
export function allTopics(): ReadonlyArray<readonly [name: string, summary: string]> {
  // A page's title is a heading ("Placeholders: …"); in a list, it reads as the others do.
  const lower = (t: string): string => (/^[A-Z][a-z]/.test(t) ? `${t.charAt(0).toLowerCase()}${t.slice(1)}` : t);
  return [...Object.entries(DOC_TOPICS).map(([name, t]) => [name, lower(t.summary)] as const), ...TOPICS];
}
