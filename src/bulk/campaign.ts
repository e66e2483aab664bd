// What a campaign is described with: the values its flags take (a rate, a delimiter) and the
// defaults of what a command may leave out. A leaf of the engine: every folder may import it, and it
// imports none of them.

export interface Rate {
  /** Recipients per millisecond. */
  readonly perMs: number;
  readonly text: string;
}

const UNITS: Record<string, number> = { s: 1_000, sec: 1_000, second: 1_000, m: 60_000, min: 60_000, minute: 60_000, h: 3_600_000, hr: 3_600_000, hour: 3_600_000 };

/** `100/s`, `6000/m`, `20000/h` (also `/sec`, `/min`, `/hour`). */
export function parseRate(input: string): Rate | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*\/\s*([a-z]+)\s*$/i.exec(input);
  if (m === null) return undefined;
  const count = Number(m[1]);
  const unit = UNITS[(m[2] ?? '').toLowerCase()];
  if (unit === undefined || !(count > 0) || !Number.isFinite(count)) return undefined;
  return { perMs: count / unit, text: input.trim() };
}

/** `--delimiter`'s value: a character, or tab, comma, semicolon, pipe by name; undefined when it cannot be one. */
export function parseDelimiter(input: string): string | undefined {
  const v = input.toLowerCase();
  if (v === 'tab' || v === '\\t' || input === '\t') return '\t';
  if (v === 'comma') return ',';
  if (v === 'semicolon') return ';';
  if (v === 'pipe') return '|';
  if (input.length === 1 && !/[\r\n"a-z0-9]/i.test(input)) return input;
  return undefined;
}

/** Requests in flight unless --concurrency says otherwise. */
export const DEFAULT_CONCURRENCY = 4;

/** Recipients per request unless --batch-size says otherwise. */
export const DEFAULT_BATCH_SIZE = 100;
