// Instants a command names (--not-before, --stop-at): ISO 8601, or a duration from now. Kept as
// instants (a journal keeps the instant, so a resume tomorrow does not move "2h" along).

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `90m`, `2h`, `1d12h`, `PT2H`, `P3D`: milliseconds; undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  const iso = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i.exec(t);
  if (iso !== null && t.length > 1 && !/T$/i.test(t)) {
    const [w, d, h, m, s] = iso.slice(1).map((v) => Number(v ?? '0')) as [number, number, number, number, number];
    return (((w * 7 + d) * 24 + h) * 60 + m) * 60_000 + s * 1_000;
  }
  const re = /(\d+(?:\.\d+)?)\s*(min|[smhdw])/gy;
  let total = 0;
  let at = 0;
  for (let m = re.exec(t); m !== null; m = re.exec(t)) {
    total += Number(m[1]) * (UNIT_MS[(m[2] as string).toLowerCase()] ?? Number.NaN);
    at = re.lastIndex;
  }
  return at === t.length && at > 0 && Number.isFinite(total) && total > 0 ? Math.round(total) : undefined;
}

/**
 * An instant: ISO 8601 (`2026-12-11T20:00:00-05:00`, `2026-12-11T20:00Z`; without an offset,
 * this machine's clock, as `date` reads it), or a duration from `now`. Undefined when it is neither.
 */
export function parseInstant(text: string, now: number): number | undefined {
  const t = text.trim();
  const d = parseDuration(t);
  // To the whole second: a deadline read back from a journal or a summary reads as given.
  if (d !== undefined) return Math.round((now + d) / 1000) * 1000;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)([zZ]|[+-]\d{2}:?\d{2})?)?$/.exec(t);
  if (m === null) return undefined;
  // A date alone is its midnight on this machine's clock (Date.parse would read it as UTC).
  const iso = `${m[1]}T${m[2] ?? '00:00'}${m[3] ?? ''}`;
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return undefined;
  // Date.parse rolls 2026-02-30 over into March: such a date is no date.
  const [y, mo, da] = (m[1] as string).split('-').map(Number) as [number, number, number];
  const check = new Date(Date.UTC(y, mo - 1, da));
  return check.getUTCMonth() === mo - 1 && check.getUTCDate() === da ? ms : undefined;
}
