// Waiting for a window to open, on whatever clock the caller has (the Context's now: the real
// one, or a test's that runs faster). The wait sleeps in steps and reads the clock again after
// each, so a clock that runs fast (a test's, or faketime) is followed as it is, and a laptop woken
// from sleep gets the right answer.
import { isScheduled, openness, type Schedule } from './plan.js';
import { zonedRows, zonesOfKey } from './rows.js';

/** The longest single sleep: a wait reads the clock again at least this often. */
const MAX_STEP_MS = 60_000;

/** The first sleep of a wait, short: it tells how fast the clock runs. */
const FIRST_STEP_MS = 20;

/**
 * A batch leaves only with at least this long (on the recipient's clock) before its window
 * closes: a request that leaves at 20:59:59.9 must not arrive after 21:00.
 */
export const CLOSING_MARGIN_MS = 60_000;

/**
 * 'deadline': the deadline has come (nothing more leaves); 'too-late': this batch's window opens
 * only after it (the batch is not sent; others may be).
 */
export type WaitResult = { readonly state: 'open' | 'deadline' | 'too-late' | 'aborted' } | { readonly state: 'closed'; readonly opensAt: number };

export interface WaitOptions {
  readonly now: () => number;
  readonly signal: AbortSignal;
  /** Closed: return at once ('closed') instead of waiting. */
  readonly exitWhenClosed: boolean;
  /** Told when a wait starts, with the zones and when it ends. */
  readonly onWait: (zones: readonly string[], opensAt: number) => void;
}

/**
 * When a batch of these zones may leave: 'open' now; 'closed' (only with exitWhenClosed, with
 * the next opening); 'deadline' when it never will before --stop-at; 'aborted' (the signal).
 * A zone set never open at all (the preflight leaves such rows out) is 'closed' for ever: a deadline.
 */
export async function waitUntilOpen(s: Schedule, zones: readonly string[], o: WaitOptions): Promise<WaitResult> {
  let told: number | undefined;
  // Clock milliseconds per real millisecond, learnt from each step (undefined: a short first step learns it).
  let speed: number | undefined;
  for (;;) {
    if (o.signal.aborted) return { state: 'aborted' };
    const now = o.now();
    let state = openness(s, zones, now);
    // Too close to closing: as closed, until the next opening.
    if (state.state === 'open' && state.until - now < CLOSING_MARGIN_MS) state = openness(s, zones, state.until);
    if (state.state === 'open') return { state: 'open' };
    if (state.state === 'deadline' || state.state === 'never') return { state: s.stopAt !== undefined && now >= s.stopAt ? 'deadline' : 'too-late' };
    if (o.exitWhenClosed) return { state: 'closed', opensAt: state.opensAt };
    if (told !== state.opensAt) {
      told = state.opensAt;
      // Named first, the zone whose window opens last: its opening is the one the run waits for.
      const decides = zones.length > 1 ? lastToOpen(s, zones, now) : undefined;
      o.onWait(decides !== undefined ? [decides, ...zones.filter((z) => z !== decides)] : zones, state.opensAt);
    }
    const step = speed === undefined ? FIRST_STEP_MS : Math.max(5, Math.min(MAX_STEP_MS, (state.opensAt - now) / speed));
    const real0 = performance.now();
    await sleep(step, o.signal);
    const realMs = performance.now() - real0;
    if (realMs >= 1) speed = Math.max(1, (o.now() - now) / realMs);
  }
}

/** Of several zones, the one whose own window opens last from `now` (open now: now). */
function lastToOpen(s: Schedule, zones: readonly string[], now: number): string | undefined {
  let last: string | undefined;
  let lastAt = -Infinity;
  for (const zone of zones) {
    const own = openness(s, [zone], now);
    const at = own.state === 'closed' ? own.opensAt : own.state === 'open' ? now : undefined;
    if (at !== undefined && at > lastAt) {
      last = zone;
      lastAt = at;
    }
  }
  return last;
}

/**
 * The send pass's gate: for a batch's grouping key, when it may leave. Undefined when the
 * schedule limits nothing.
 */
export function scheduleGate(s: Schedule, o: WaitOptions): ((key: string | undefined) => Promise<WaitResult>) | undefined {
  if (!isScheduled(s)) return undefined;
  const one = s.tz?.kind === 'zone' ? [s.tz.zone] : [];
  const zoned = zonedRows(s);
  return (key) => waitUntilOpen(s, zoned ? zonesOfKey(key) : one, o);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The progress line of a wait: whose window, when it opens there and in UTC. */
export function windowWait(zones: readonly string[], opensAt: number): string {
  const at = new Date(opensAt);
  const named = zones.filter((z) => z !== '');
  const zone = named[0];
  const local = zone !== undefined ? `${new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at)} in ${zone}${named.length > 1 ? ` (and ${named.length - 1} more zone${named.length === 2 ? '' : 's'})` : ''}, ` : '';
  return `outside the send window: waiting until ${local}${at.toISOString()}; Ctrl-C stops (--resume goes on later)`;
}
