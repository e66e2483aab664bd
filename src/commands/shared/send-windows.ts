// Send windows for the commands: the window a profile keeps, as the schedule's flags take it
// (src/schedule/from-flags.ts), and `send`'s check before its one request.
import type { Context } from '../../context.js';
import { UsageError, WindowClosedError } from '../../errors.js';
import type { Ui } from '../../output/ui.js';
import { CLOSING_MARGIN_MS, describeSchedule, isScheduled, openness, resolveSchedule, rowZoneChecker, windowWait, type ProfileSchedule, type ScheduleFlags } from '../../schedule/index.js';
import type { Settings } from '../../settings/resolve.js';

/** The profile's window and zone rule; undefined when it keeps neither. */
export function profileSchedule(settings: Pick<Settings, 'window' | 'tz' | 'profile'>): ProfileSchedule | undefined {
  if (settings.window.value === undefined && settings.tz.value === undefined) return undefined;
  return { window: settings.window.value, tz: settings.tz.value, name: settings.window.origin ?? settings.tz.origin ?? settings.profile.value ?? '' };
}

/**
 * `send`'s check before sending (docs/send-windows.md): the request leaves only while every
 * recipient's window is open and before --stop-at; else nothing is sent (exit 8), and the message
 * says when it opens. A dry run says the same on stderr and exits 0.
 */
export function checkSendWindow(ctx: Context, ui: Ui, flags: ScheduleFlags, settings: Pick<Settings, 'window' | 'tz' | 'profile'>, numbers: readonly string[], dryRun: boolean): void {
  const now = ctx.now().getTime();
  const given = resolveSchedule(flags, profileSchedule(settings), now, false);
  if (given.overrode !== undefined) ui.info(`--any-time: profile ${given.overrode}'s send window is set aside for this message`);
  const s = given.schedule;
  if (!isScheduled(s)) return;
  if (s.tz?.kind === 'column') throw new UsageError('--tz column:NAME is for send-bulk: send has no columns', { hint: 'Give the zone (--tz Europe/Paris), or auto for the zones of each number\'s country.' });
  if (numbers.length === 0 && s.windows.length > 0 && s.tz?.kind !== 'zone') throw new UsageError('--window: address-book contacts have no number to read their zone from; nothing was sent', { hint: 'Give their zone: --tz Europe/Paris.' });
  const zonesOf = rowZoneChecker(s, now);
  const zones = new Set<string>();
  for (const n of numbers) {
    const z = zonesOf(n, undefined);
    if ('error' in z) throw new UsageError(`${n} ${z.error}; nothing was sent`, { hint: z.cause === 'zone' ? 'Give the zone with --tz NAME.' : 'Widen --window, or give the zone meant with --tz NAME.' });
    // No window: no zones (the key is empty); a deadline alone needs none.
    for (const zone of z.key.split(' ')) if (zone !== '') zones.add(zone);
  }
  const all = [...zones].sort();
  let state = openness(s, all, now);
  if (state.state === 'open' && state.until - now < CLOSING_MARGIN_MS) state = openness(s, all, state.until);
  const what = describeSchedule(s, numbers.length === 1 ? 'one' : 'each');
  if (state.state === 'open') {
    if (dryRun) ui.info(`when: ${what}: open now`);
    return;
  }
  // `what` may hold a parenthesis of its own: it is never put inside another.
  const outside = s.windows.length > 0 ? `outside the ${what}` : `outside the send window: ${what}`;
  const why = state.state === 'closed' ? `${outside}; it opens at ${windowWait(all, state.opensAt).replace(/^outside the send window: waiting until /, '').replace(/; Ctrl-C.*$/, '')}` : state.state === 'never' ? `never inside the ${what}, in all of ${all.join(', ')} at once` : `past the deadline, or the window opens only after it: ${what}`;
  if (dryRun) {
    ui.info(`when: ${why}: a send now would send nothing (exit 8)`);
    return;
  }
  // Only what would then be accepted: --any-time sets a profile's window aside, and is refused
  // beside a --window of the command's own, which is simply left out (and, when the profile keeps
  // a window too, replaced by --any-time: without it the profile's window would apply).
  const ownWindow = flags.window !== undefined && flags.window.length > 0;
  const goNow = s.windows.length === 0 ? '' : ownWindow ? (settings.window.value !== undefined ? ', or now with --any-time in place of --window (it sets the profile\'s window aside too)' : ', or now without --window') : ', or now with --any-time (it sets the profile\'s window aside)';
  throw new WindowClosedError(`not sent: ${why}`, { hint: state.state === 'closed' ? `Send it again once the window opens${goNow}.` : `Give a later --stop-at${goNow.replace(', or now', ', or send it')}.` });
}
