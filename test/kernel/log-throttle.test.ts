// A log line about refused input is written at most once per window per kind, with the count left out since.
import t from 'tap';
import { throttledLine } from '../../core/kernel/log-throttle.js';
import { createMemoryLogger } from '../../core/kernel/logger.js';

t.test('one line per window, then the next carries the number suppressed meanwhile', async (t) => {
  const logger = createMemoryLogger('debug');
  const refused = throttledLine(logger, 'warn', 'refused', 50);
  const other = throttledLine(logger, 'warn', 'other kind', 50);
  for (let i = 0; i < 1000; i++) refused({ n: i });
  other();
  t.match(logger.lines, [
    { level: 'warn', message: 'refused', n: 0, suppressed_since_last: 0 },
    { level: 'warn', message: 'other kind', suppressed_since_last: 0 },
  ]);
  t.equal(logger.lines.length, 2, '1,000 refusals, one line; each kind has its own window');
  await new Promise((r) => setTimeout(r, 60));
  refused({ n: 1000 });
  t.match(logger.lines[2], { message: 'refused', n: 1000, suppressed_since_last: 999 });
});
