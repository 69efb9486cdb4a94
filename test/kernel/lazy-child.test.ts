// lazyChild: a per-call child logger costs nothing until it writes, and then writes exactly what child() would.
import t from 'tap';
import { createMemoryLogger, lazyChild } from '../../core/kernel/logger.js';

t.test('no child is built until a line is written; the line carries the bound fields', async (t) => {
  const parent = createMemoryLogger();
  let built = 0;
  const counting = { ...parent, child: (f: Record<string, unknown>) => (built++, parent.child(f)) };
  const log = lazyChild(counting, { plugin: 'phone', request_id: 'req_1' });
  t.equal(built, 0, 'nothing built for a call that never logs');
  log.warn('slow upstream', { ms: 5 });
  log.error('failed');
  t.equal(built, 1, 'built once, on the first line');
  t.match(parent.lines, [
    { level: 'warn', plugin: 'phone', request_id: 'req_1', ms: 5, message: 'slow upstream' },
    { level: 'error', plugin: 'phone', request_id: 'req_1', message: 'failed' },
  ]);
  lazyChild(counting, { plugin: 'phone' }).child({ operation: 'phone' }).info('nested');
  t.match(parent.lines[2], { plugin: 'phone', operation: 'phone', message: 'nested' });
});
