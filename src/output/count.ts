// Numbers for people, grouped in thousands as en-US writes them ("1,234,567", "2.5"). Written by
// hand: the first `toLocaleString('en-US')` of a process loads ICU's locale data, ~19 ms on Node
// 20 here, which on its own would be most of a `send --dry-run`'s budget (docs/performance.md).
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const rounded = Math.round(Math.abs(n) * 1000) / 1000;
  const [whole = '0', fraction] = String(rounded).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 && rounded !== 0 ? '-' : ''}${grouped}${fraction !== undefined ? `.${fraction}` : ''}`;
}

/** Bytes for people, rounded up (it says how much room to make): `740 KB`, `2.4 MB`. */
export function formatBytes(n: number): string {
  return n >= 1e6 ? `${(Math.ceil(n / 1e5) / 10).toFixed(1)} MB` : `${Math.max(1, Math.ceil(n / 1e3))} KB`;
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}` : `${m}:${String(sec).padStart(2, '0')}`;
}

/** A time span for people, to the minute: `40 s`, `12 min`, `6 h 5 min`. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h${min % 60 > 0 ? ` ${min % 60} min` : ''}`;
}
