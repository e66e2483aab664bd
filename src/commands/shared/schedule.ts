// The send window a profile keeps, as the schedule's flags take it (src/schedule/flags.ts).
import type { ProfileSchedule } from '../../schedule/index.js';
import type { Settings } from '../../settings/resolve.js';

/** The profile's window and zone rule; undefined when it keeps neither. */
export function profileSchedule(settings: Pick<Settings, 'window' | 'tz' | 'profile'>): ProfileSchedule | undefined {
  if (settings.window.value === undefined && settings.tz.value === undefined) return undefined;
  return { window: settings.window.value, tz: settings.tz.value, name: settings.window.origin ?? settings.tz.origin ?? settings.profile.value ?? '' };
}
