// The help topics written as docs pages (docs/help/<topic>.md): the build renders each for the
// terminal and defines them here (scripts/build/help-topics.mjs), so the page and `msgr help
// <topic>` are one text. Imported only when `msgr help` (or its completion) runs.
import { TOPICS } from './topics.js';

declare const __MSGR_HELP_TOPICS__: Readonly<Record<string, { readonly summary: string; readonly text: string }>> | undefined;

export const DOC_TOPICS: Readonly<Record<string, { readonly summary: string; readonly text: string }>> = typeof __MSGR_HELP_TOPICS__ === 'object' ? __MSGR_HELP_TOPICS__ : {};

/** Every topic with its summary: the docs pages' first (docs/help/), then those of topics.ts. */
export function allTopics(): ReadonlyArray<readonly [name: string, summary: string]> {
  // A page's title is a heading ("Placeholders: …"); in a list, it reads as the others do.
  const lower = (t: string): string => (/^[A-Z][a-z]/.test(t) ? `${t.charAt(0).toLowerCase()}${t.slice(1)}` : t);
  return [...Object.entries(DOC_TOPICS).map(([name, t]) => [name, lower(t.summary)] as const), ...TOPICS];
}
