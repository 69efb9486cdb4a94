// LOG_LEVEL and LOG_FORMAT, read by the gateway and by the cluster primary (which loads nothing else of config).
import { LEVELS, type Level, type LogFormat } from '../kernel/logger.js';

export interface LogSettings {
  level: Level;
  format: LogFormat;
}

/** LOG_LEVEL: debug|info|warn|error (info). LOG_FORMAT: json|pretty; unset = pretty when stderr is a terminal. */
export function readLogSettings(env: NodeJS.ProcessEnv, stderrIsTty = !!process.stderr.isTTY): LogSettings {
  const level = (env.LOG_LEVEL || 'info') as Level;
  if (!LEVELS.includes(level)) throw new Error(`LOG_LEVEL must be one of ${LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  const format = (env.LOG_FORMAT || (stderrIsTty ? 'pretty' : 'json')) as LogFormat;
  if (format !== 'json' && format !== 'pretty')
    throw new Error(`LOG_FORMAT must be json or pretty, got "${env.LOG_FORMAT}"`);
  return { level, format };
}
