// The schedule a command gives: its flags (--window, --tz, --not-before, --stop-at, --any-time)
// over a profile's defaults (its window and tz settings), checked, each error naming the flag or
// the profile's setting it came from.
import { UsageError } from '../errors.js';
import { shellQuote } from '../output/shell.js';
import { ANY_TIME, instantOrError, isScheduled, parseWindows, scheduleFromRecord, scheduleRecord, type Schedule, type ScheduleRecord } from './plan.js';
import { parseZoneRule, type ZoneRule } from './zones.js';

export interface ScheduleFlags {
  readonly window?: readonly string[] | undefined;
  readonly tz?: string | undefined;
  readonly notBefore?: string | undefined;
  readonly stopAt?: string | undefined;
  readonly anyTime?: boolean | undefined;
}

export interface ProfileSchedule {
  /** The profile's window setting: windows separated by spaces. */
  readonly window?: string | undefined;
  readonly tz?: string | undefined;
  /** The profile's name, for messages. */
  readonly name: string;
}

export interface ResolvedSchedule {
  readonly schedule: Schedule;
  /** Where the windows came from: the command, a profile, or nowhere. */
  readonly windowsFrom: 'flag' | 'profile' | 'none';
  /** --any-time set a profile's window aside: the name of that profile (said so on stderr). */
  readonly overrode: string | undefined;
  /** The profile's windows: those --any-time set aside, or those a resume of a run without any does not take. */
  readonly profileWindows: readonly string[];
  /** The command gave --stop-at (a resume past its journal's deadline needs a new one). */
  readonly stopAtGiven: boolean;
  /** --any-time: no window for this command, whatever a profile or a journal keeps. */
  readonly anyTime: boolean;
}

/** The windows of a profile's setting, space-separated. */
export function splitWindows(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

/** `columns`: false for a command with no rows to read a zone from (`send`): hints offer no column form. */
export function resolveSchedule(flags: ScheduleFlags, profile: ProfileSchedule | undefined, now: number, columns = true): ResolvedSchedule {
  if (flags.anyTime === true && flags.window !== undefined) throw new UsageError('--any-time and --window cannot be used together', { hint: '--any-time sends at any hour, setting aside the profile\'s window; --window gives the window. Keep one.' });
  const fromFlag = flags.window !== undefined && flags.window.length > 0;
  const profileWindow = profile?.window !== undefined && profile.window.trim() !== '' ? profile.window : undefined;
  const useProfile = !fromFlag && flags.anyTime !== true && profileWindow !== undefined;
  const texts = fromFlag ? (flags.window ?? []).flatMap((w) => w.split(/\s+/)).filter((w) => w !== '') : useProfile ? splitWindows(profileWindow) : [];
  const windows = parseWindows(texts);
  if ('error' in windows) {
    if (fromFlag) throw new UsageError(`--window: ${windows.error}`, { hint: 'For example --window 08:00-21:00, or --window mon-fri:09:00-20:00 --window sat:10:00-16:00 (each on the recipient\'s clock).' });
    // The profile's setting is fixed where it is kept, not with flags (docs/send-windows.md: "Quiet hours in a profile").
    const name = shellQuote(profile?.name ?? 'NAME');
    throw new UsageError(`profile ${profile?.name ?? ''} window: ${windows.error}`, { hint: `For example msgr profile set ${name} window '08:00-21:00', or msgr profile set ${name} window 'mon-fri:09:00-20:00 sat:10:00-16:00' (windows separated by spaces, each on the recipient's clock).` });
  }
  let tz: ZoneRule | undefined;
  const tzText = flags.tz ?? (flags.anyTime !== true ? profile?.tz : undefined);
  if (tzText !== undefined) {
    const rule = parseZoneRule(tzText);
    if ('error' in rule) throw new UsageError(`${flags.tz !== undefined ? '--tz' : `profile ${profile?.name ?? ''} tz`}: ${rule.error}`, { hint: columns ? 'Give an IANA zone (--tz America/New_York), a column of zones (--tz column:timezone), or auto (the zones of each number\'s country).' : 'Give an IANA zone (--tz America/New_York), or auto (the zones of the number\'s country).' });
    tz = rule;
  }
  if (flags.tz !== undefined && windows.length === 0) throw new UsageError('--tz needs a send window: it says whose clock --window is read on', { hint: `For example --window 09:00-20:00 --tz ${flags.tz}` });
  // A window without --tz is read on each recipient's clock: their number's region's or country's zones.
  if (windows.length > 0) tz ??= { kind: 'auto' };
  const at = (text: string | undefined, flag: string): number | undefined => {
    if (text === undefined) return undefined;
    const t = instantOrError(text, now);
    if (typeof t !== 'number') throw new UsageError(`${flag}: ${t.error}`, { hint: `For example ${flag} 2026-12-11T20:00:00-05:00, or ${flag} 4h.` });
    return t;
  };
  const notBefore = at(flags.notBefore, '--not-before');
  const stopAt = at(flags.stopAt, '--stop-at');
  if (stopAt !== undefined && stopAt <= now) throw new UsageError(`--stop-at: ${new Date(stopAt).toISOString()} has passed`, { hint: 'Give a time to come, or a duration from now (--stop-at 4h).' });
  if (notBefore !== undefined && stopAt !== undefined && stopAt <= notBefore) throw new UsageError('--stop-at comes before --not-before: nothing could be sent', { hint: 'Give a deadline after the start.' });
  const schedule: Schedule = windows.length === 0 && notBefore === undefined && stopAt === undefined ? ANY_TIME : { windows, tz: windows.length > 0 ? tz : undefined, notBefore, stopAt };
  return { schedule, windowsFrom: fromFlag ? 'flag' : useProfile ? 'profile' : 'none', overrode: flags.anyTime === true && profileWindow !== undefined ? (profile?.name ?? '') : undefined, profileWindows: profileWindow !== undefined ? splitWindows(profileWindow) : [], stopAtGiven: stopAt !== undefined, anyTime: flags.anyTime === true };
}

/**
 * The schedule a run keeps: a new run's, as the command and profile say; a resumed run's, as its
 * journal says (windows, zones), with a deadline or start the command gives anew. --any-time sets
 * a resumed run's windows aside too, for this command.
 */
export function runSchedule(given: ResolvedSchedule, journaled: ScheduleRecord | undefined, resumed: boolean): Schedule {
  if (!resumed) return given.schedule;
  const kept = journaled !== undefined ? (scheduleFromRecord(journaled) ?? ANY_TIME) : ANY_TIME;
  const windows = given.anyTime ? [] : kept.windows;
  const s: Schedule = {
    windows,
    tz: windows.length > 0 ? kept.tz : undefined,
    notBefore: given.schedule.notBefore ?? kept.notBefore,
    stopAt: given.stopAtGiven ? given.schedule.stopAt : kept.stopAt,
  };
  return isScheduled(s) ? s : ANY_TIME;
}

/** A window --any-time set aside: the profile's, or on a resume the run's. */
export interface SetAside {
  readonly profile: string | null;
  readonly run: string | null;
  readonly windows: readonly string[];
}

/**
 * The schedule in --json (docs/send-windows.md: "Quiet hours in a profile"): null when the run has
 * none and --any-time set nothing aside; `setAside` names the window --any-time set aside, so that
 * a script can tell a run without quiet hours from one whose quiet hours were waived.
 */
export function scheduleJson(s: Schedule, given: ResolvedSchedule, resumedRun: string | undefined, journaledWindows: readonly string[]): (ScheduleRecord & { readonly setAside?: SetAside }) | null {
  const setAside: SetAside | undefined =
    given.overrode !== undefined ? { profile: given.overrode, run: null, windows: given.profileWindows }
    : given.anyTime && resumedRun !== undefined && journaledWindows.length > 0 ? { profile: null, run: resumedRun, windows: journaledWindows }
    : undefined;
  if (!isScheduled(s) && setAside === undefined) return null;
  return { ...scheduleRecord(s), ...(setAside !== undefined ? { setAside } : {}) };
}
