// When a message may leave: the schedule concept's front door. A schedule is what a command says
// about time: send windows on the recipient's clock (--window), whose clock that is (--tz: a zone,
// a zone per row from a column, or the zones of the number's region or country), and the span the
// run may send in (--not-before, --stop-at). It answers one question for a set of zones at an instant:
// open (until when), closed (opens when), past its deadline, or never open at all. Users' page:
// docs/send-windows.md; the dataset for --tz auto: docs/design.md: "Time zones". Nothing here
// reads a clock: the caller gives the instant (the Context's now), so tests fix it.
export { ANY_TIME, commonSpans, describeSchedule, instantOrError, isScheduled, openness, parseWindows, scheduleFromRecord, scheduleRecord, zonesOf, type Openness, type Schedule, type ScheduleRecord } from './plan.js';
export { parseDuration, parseInstant } from './deadlines.js';
export { canonicalZone, countryZones, parseZoneRule, zoneRuleText, type ZoneRule } from './zones.js';
export { parseWindow, type Span, type Window } from './windows.js';
export { messageKeyOf, rowZoneChecker, zonedRows, zonesOfKey, ZONE_KEY_END, type RowZones } from './rows.js';
export { CLOSING_MARGIN_MS, scheduleGate, waitUntilOpen, windowWait, type WaitOptions, type WaitResult } from './wait.js';
export { resolveSchedule, runSchedule, scheduleJson, splitWindows, type ProfileSchedule, type ResolvedSchedule, type ScheduleFlags, type SetAside } from './from-flags.js';
