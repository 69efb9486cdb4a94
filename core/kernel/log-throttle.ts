// A log line about refused input (a bad notification, a connection over a cap) is written at most once per
// `everyMs` per kind, with the number of lines suppressed since the last one: a flood of refusals must not become
// a flood of log lines (tens of thousands a second fill a disk as surely as rows do).
import type { Level, Logger } from './logger.js';

/** Returns a function that logs `message` with its fields, or counts the line when one was written recently. */
export function throttledLine(
  logger: Logger,
  level: Exclude<Level, 'debug'>,
  message: string,
  everyMs = 60_000,
): (fields?: Record<string, unknown>) => void {
  let last = -Infinity;
  let suppressed = 0;
  return (fields) => {
    const now = Date.now();
    if (now - last < everyMs) {
      suppressed++;
      return;
    }
    logger[level](message, { ...fields, suppressed_since_last: suppressed });
    last = now;
    suppressed = 0;
  };
}
