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
