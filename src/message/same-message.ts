// "The same message" (docs/reruns.md: "Changed files and follow-up campaigns"): two requests without
// their recipients compared field by field. `send --once` and send-bulk's earlier runs both ask it.

/**
 * "The same message": the request without its recipients, field by field, apart from `validity`
 * (an absolute time, so `--validity 2h` gives a new one on every run; it says how long to try,
 * not what is said). Returns the fields that differ.
 */
export function messageDifferences(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  keys.delete('validity');
  keys.delete('recipients');
  return [...keys].filter((k) => canonical(a[k]) !== canonical(b[k])).sort();
}

function canonical(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}
