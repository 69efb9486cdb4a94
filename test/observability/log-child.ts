// Run by logging.test.ts as its own process: the process logger as `serve` builds it (LOG_LEVEL, LOG_FORMAT),
// writing N lines with a secret in their fields and exiting at once (or aborting), as a process on its way down does.

import { readLogSettings } from '../../core/config/log-env.js';
import { createProcessLogger } from '../../core/kernel/logger.js';

const { level, format } = readLogSettings(process.env);
const logger = createProcessLogger(level, format).child({ role: 'child' });
const lines = Number(process.argv[2] ?? 1);
for (let i = 0; i < lines; i++)
  logger.info(`line ${i}`, { n: i, password: 'hunter2-child', headers: { authorization: 'Bearer child-secret' } });
logger.debug('debug line');
if (process.argv[3] === 'abort') {
  // As the sandbox does on an isolated-vm catastrophic error: abort() runs no exit handlers.
  logger.flushSync();
  process.abort();
}
process.exit(0);
