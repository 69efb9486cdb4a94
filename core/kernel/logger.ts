// Structured JSON-lines logger. Every line carries its bound fields (request id, plugin, operation) so a
// log line can always be traced back to the call that wrote it.
export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export interface LogSink {
  write(line: string): void;
}

export function createLogger(level: Level = 'info', sink: LogSink = process.stderr, bound: Record<string, unknown> = {}): Logger {
  const min = ORDER[level];
  const emit = (lvl: Level, message: string, fields?: Record<string, unknown>): void => {
    if (ORDER[lvl] < min) return;
    const line = { time: new Date().toISOString(), level: lvl, message, ...bound, ...fields };
    sink.write(JSON.stringify(line, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, sink, { ...bound, ...fields }),
  };
}

/** A logger that keeps lines in memory: tests assert on what was logged. */
export function createMemoryLogger(level: Level = 'debug'): Logger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(level, { write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  return Object.assign(logger, { lines });
}
