// Invalid rows counted by cause (docs/campaign-input.md: "Preflight"): each cause's words, its first rows and
// its hint, as the preflight collects them and the summary prints them.
import { formatCount } from '../../output/count.js';
import { FLAG } from '../flag-names.js';

export interface RowProblem {
  readonly line: number;
  readonly column: string;
  readonly message: string;
}

/**
 * Rows that failed for one cause: how many, and the first few. Causes are a small fixed set
 * (problemCause()), so 50,000 rows failing for one reason are one group, printed once.
 */
export interface ProblemGroup {
  readonly cause: string;
  readonly column: string;
  count: number;
  readonly samples: RowProblem[];
  readonly hint: string | undefined;
}

/** Rows shown per cause. */
export const SAMPLES_PER_CAUSE = 3;

const CAUSES: Record<string, string> = {
  scientific: 'numbers in scientific notation',
  decimal: 'numbers written as decimals',
  formula: 'spreadsheet error values (#NULL!, #NAME?) where numbers should be',
  'no-plus': 'international numbers without their +',
  national: `national numbers, and no ${FLAG.defaultCountry}`,
  characters: 'numbers with characters that are not digits',
  empty: 'empty numbers',
  'too-long': 'numbers too long to be phone numbers',
  impossible: 'numbers that cannot be phone numbers',
  unlisted: 'numbers in no range of the numbering plan',
  mistyped: 'numbers a digit short or long, or with a national 0 kept',
  'two-numbers': 'cells with two numbers or more',
  header: 'the header row again (two exports joined?)',
  fields: 'rows with a wrong number of fields',
  utf8: 'text that is not valid UTF-8',
  mojibake: 'text mangled by a spreadsheet (UTF-8 read as Windows-1252)',
  'empty-value': 'placeholders with an empty value and no default',
  'empty-message': 'empty messages',
  'empty-sender': 'empty senders',
  sender: 'senders the channel does not allow',
  'max-parts': `messages longer than ${FLAG.maxParts}`,
  zone: 'rows with no time zone to read the send window on',
  'no-open-time': 'numbers never inside the send window in all their zones at once',
};

/** The words for a cause, for messages. */
export function describeCause(cause: string): string {
  return CAUSES[cause] ?? 'invalid rows';
}

/** Adds one row's problem to its cause's group (groups stay in the order causes first occur). */
export function addToGroup(groups: ProblemGroup[], cause: string, problem: RowProblem, hint: string | undefined): void {
  let g = groups.find((x) => x.cause === cause && x.column === problem.column);
  if (g === undefined) {
    g = { cause, column: problem.column, count: 0, samples: [], hint };
    groups.push(g);
  }
  g.count++;
  if (g.samples.length < SAMPLES_PER_CAUSE) g.samples.push(problem);
}

/** Two parts' groups as one pass over both would have made them. */
export function mergeGroups(a: readonly ProblemGroup[], b: readonly ProblemGroup[]): ProblemGroup[] {
  const out = a.map((g) => ({ ...g, samples: [...g.samples] }));
  for (const g of b) {
    const into = out.find((x) => x.cause === g.cause && x.column === g.column);
    if (into === undefined) out.push({ ...g, samples: [...g.samples] });
    else {
      into.count += g.count;
      for (const s of g.samples) if (into.samples.length < SAMPLES_PER_CAUSE) into.samples.push(s);
    }
  }
  return out;
}

/** The groups as lines: a count and cause, then its first rows. */
export function formatGroups(groups: readonly ProblemGroup[]): string[] {
  const lines: string[] = [];
  for (const g of groups) {
    lines.push(`  ${formatCount(g.count)} row${g.count === 1 ? '' : 's'}: ${describeCause(g.cause)}${g.column !== '' ? ` (column ${g.column})` : ''}`);
    for (const p of g.samples) lines.push(`    line ${p.line}: ${p.message}`);
    if (g.count > g.samples.length) lines.push(`    … and ${formatCount(g.count - g.samples.length)} more`);
  }
  return lines;
}
