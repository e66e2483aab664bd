// The results table: its rows and notes (each printed to stderr as it is added; run.mjs prints
// the table and writes results.md and results.json at the end), and how figures are written.

/** The median of a list of numbers; undefined for none. */
export function median(values) {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid) ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[Math.floor(mid)];
}

export const MB = 1e6; // targets are read as decimal megabytes (10^6 bytes), the stricter reading

/** @type {Array<{section: string, figure: string, measured: string, target: string, baseline: string, status: string}>} */
export const rows = [];
export const notes = [];
export function row(section, figure, measured, target, baseline, status) {
  rows.push({ section, figure, measured, target, baseline, status });
  console.error(`  ${status.padEnd(5)} ${figure}: ${measured}${target !== '' ? `  (target ${target})` : ''}`);
}
export function note(text) {
  notes.push(text);
  console.error(`  note: ${text}`);
}
export const passMiss = (ok) => (ok ? 'pass' : 'miss');
export const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
export const fmtMs = (s) => `${(s * 1000).toFixed(1)} ms`;
export const fmtMB = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
