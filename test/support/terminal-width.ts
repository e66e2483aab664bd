// Whether lines fit a terminal of so many columns, as msgr's tests of its widths check them
// (docs/contract.md: "Streams"): only a path or a URL longer than the line may run past it.
import { displayWidth } from '../../src/output/wrap.js';

/** The widths every check runs at: the usual terminal's, and a narrow one. */
export const COLUMNS = [80, 60] as const;
const PATH_OR_URL = /^(?:[a-z]+:\/\/\S+|\S*\/\S*\/\S+)$/;

/**
 * The lines wider than `columns`, but those that are wider only by a path or a URL (a word with
 * slashes): without it, the line fits.
 */
export function tooWide(text: string, columns: number): string[] {
  return text
    // A spinner goes back to the line's start (CR, or ESC [1G) to draw it again: what stays is the last.
    .replace(/\u001b\[\d*G/g, '\r')
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .split(/\r?\n/)
    .map((line) => line.split('\r').pop() ?? '')
    .filter((line) => displayWidth(line) > columns && displayWidth(line.split(' ').filter((w) => !PATH_OR_URL.test(w.replace(/^[("'`]+|[)"'`.,;:]+$/g, ''))).join(' ')) > columns)
    .map((line) => `${displayWidth(line)} columns: ${line}`);
}
