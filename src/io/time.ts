// Dates as people read them: on a terminal, the local date and time to the minute in the
// zone of TZ (or the system's), with the zone's name: "2026-11-26 07:38 CET". Piped rows and
// --json keep the ISO 8601 text as the service or the record has it, for scripts.
import type { IOStreams } from './streams.js';

/** "2026-11-26 07:38 CET"; the text as given when it is not a date. An unknown TZ falls back to UTC. */
export function localTime(iso: string, timeZone?: string | undefined): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const parts = formatter(timeZone).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} ${part('timeZoneName')}`;
}

/** The time of day to the second, with the zone: "07:38:12 GMT+1" (a watch's last refresh). */
export function clockTime(iso: string, timeZone?: string | undefined): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const parts = formatter(timeZone, { second: '2-digit' }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('hour')}:${part('minute')}:${part('second')} ${part('timeZoneName')}`;
}

/** localTime on a terminal (TZ from `env`), the ISO text anywhere else. */
export function shownTime(io: Pick<IOStreams, 'stdoutIsTTY'>, env: Readonly<Record<string, string | undefined>>, iso: string): string {
  return io.stdoutIsTTY ? localTime(iso, zoneOf(env)) : iso;
}

/** The zone TZ names, as Intl takes it (a leading ":" as POSIX allows is dropped); undefined: the system's. */
export function zoneOf(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const tz = env.TZ?.replace(/^:/, '');
  return tz === undefined || tz === '' ? undefined : tz;
}

function formatter(timeZone: string | undefined, more: Intl.DateTimeFormatOptions = {}): Intl.DateTimeFormat {
  const options: Intl.DateTimeFormatOptions = { ...more, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' };
  try {
    return new Intl.DateTimeFormat('en-US', { ...options, timeZone });
  } catch {
    return new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' });
  }
}
