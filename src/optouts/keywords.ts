// Which replies are an opt-out or an opt-in (docs/optouts.md: "From replies"): the whole text
// of the reply must be one of the words, in any case, so "please stop the deliveries" or "Stop
// by tomorrow?" never opt anyone out. The words are the CTIA's and the carriers' usual ones.

export const DEFAULT_STOP_WORDS: readonly string[] = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT'];
export const DEFAULT_START_WORDS: readonly string[] = ['START', 'UNSTOP'];

/**
 * A reply as compared with the words: Unicode-normalised (full-width letters), upper case, without
 * the spaces, dashes and underscores inside ("opt-out", "Stop all"), the quotes around it and the
 * punctuation after it ("STOP.", "Stop!").
 */
export function keywordOf(text: string): string {
  return text
    .normalize('NFKC')
    .trim()
    .replace(/^["'“”‘’«»]+|["'“”‘’«»]+$/g, '')
    .replace(/[.!?。！]+$/u, '')
    .replace(/[\s\-_]+/g, '')
    .toUpperCase();
}

export interface Keywords {
  readonly stop: ReadonlySet<string>;
  readonly start: ReadonlySet<string>;
}

export function keywords(stop: readonly string[] = DEFAULT_STOP_WORDS, start: readonly string[] = DEFAULT_START_WORDS): Keywords {
  return { stop: new Set(stop.map(keywordOf)), start: new Set(start.map(keywordOf)) };
}

export function classifyReply(text: string, words: Keywords): 'stop' | 'start' | undefined {
  const key = keywordOf(text);
  if (key === '') return undefined;
  if (words.stop.has(key)) return 'stop';
  if (words.start.has(key)) return 'start';
  return undefined;
}
