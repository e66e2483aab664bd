// src/message/request-fields/ owns the request's fields as a person writes them, read and checked before
// src/message/request.ts builds the request: the whole request given with --input (whole-request.ts) and
// the `validity` field's time or duration (validity.ts).
//
// `--validity`: an ISO 8601 time or a duration from now, always sent in UTC as
// YYYY-MM-DDTHH:mm:ss.sss+00:00 (docs/contract.md: "Requests"; docs/api.md: "Request fields").

const DURATION = /^(\d+)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|weeks?)$/i;
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
// Date and time with seconds optional, fractional seconds optional, and a required offset.
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const ISO_NO_OFFSET = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/;

export type ValidityResult = { ok: true; value: string } | { ok: false; reason: string };

/** Formats a date as the wire format: UTC with milliseconds and an explicit +00:00. */
export function formatUtc(date: Date): string {
  return date.toISOString().replace(/Z$/, '+00:00');
}

export function parseValidity(input: string, now: Date): ValidityResult {
  const text = input.trim();
  const duration = DURATION.exec(text);
  if (duration !== null) {
    const amount = Number(duration[1]);
    const unit = (duration[2] ?? 's').toLowerCase();
    const ms = amount * (UNIT_MS[unit.charAt(0)] ?? 1000);
    if (amount <= 0) return { ok: false, reason: `"${text}" is not in the future: give a duration above zero` };
    if (!Number.isSafeInteger(ms) || ms > 3_650 * 86_400_000) return { ok: false, reason: `"${text}" is too far in the future` };
    return { ok: true, value: formatUtc(new Date(now.getTime() + ms)) };
  }
  if (ISO_NO_OFFSET.test(text)) {
    return { ok: false, reason: `"${text}" has no UTC offset: add Z or an offset such as +01:00 so the time is not ambiguous` };
  }
  if (!ISO_WITH_OFFSET.test(text)) {
    return { ok: false, reason: `"${text}" is neither an ISO 8601 time (2026-12-01T09:00:00Z) nor a duration (90s, 30m, 2h, 3d)` };
  }
  const date = new Date(text.replace(' ', 'T'));
  if (Number.isNaN(date.getTime()) || !isRealDateTime(text)) return { ok: false, reason: `"${text}" is not a real date and time` };
  if (date.getTime() <= now.getTime()) return { ok: false, reason: `${formatUtc(date)} is in the past` };
  return { ok: true, value: formatUtc(date) };
}

/** Date.parse rolls 2027-02-30 over to March 2; the fields themselves must exist. */
function isRealDateTime(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/i.exec(text);
  if (m === null) return false;
  const [year, month, day, hour, minute, second] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
}

/** A duration as `--validity` reads one (`90s`, `30m`, `2h`, `3d`, `1w`), in milliseconds; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (m === null) return undefined;
  return Number(m[1]) * (UNIT_MS[(m[2] ?? 's').charAt(0).toLowerCase()] ?? 1000);
}
