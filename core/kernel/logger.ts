// Structured JSON-lines logging on pino, behind the small Logger interface the rest of core uses. Every line has
// one shape, in every process (the cluster primary too):
//   {"level":"info","time":"2026-01-01T00:00:00.000Z","pid":123,<bound fields>,<fields>,"message":"..."}
// Bound fields (request id, plugin, operation) let a line be traced back to the call that wrote it. Known secret
// fields are replaced by "[redacted]" (redact.ts); plugin fields are scrubbed deeper at the sandbox bridge.
import { type DestinationStream, type Logger as PinoLogger, pino } from 'pino';
import pretty from 'pino-pretty';
import { REDACT_CENSOR, REDACT_PATHS } from './redact.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
export const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];
/** json: one JSON object per line (production); pretty: coloured, human-readable (a terminal). */
export type LogFormat = 'json' | 'pretty';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /** Write out buffered lines now: before process.abort(), which skips the exit handlers that normally do it. */
  flushSync(): void;
}

/** Anything with a synchronous write(line): a test's array, a stream. */
export interface LogSink {
  write(line: string): void;
}

const MESSAGE_KEY = 'message';

function wrap(p: PinoLogger, flushSync: () => void): Logger {
  // pino's (fields, message) argument order, turned around to the interface's (message, fields).
  return {
    debug: (m, f) => (f ? p.debug(f, m) : p.debug(m)),
    info: (m, f) => (f ? p.info(f, m) : p.info(m)),
    warn: (m, f) => (f ? p.warn(f, m) : p.warn(m)),
    error: (m, f) => (f ? p.error(f, m) : p.error(m)),
    child: (fields) => wrap(p.child(fields), flushSync),
    flushSync,
  };
}

/**
 * A child logger built only when it first writes a line: pino's child() serialises its bindings up front (a cost
 * measured in docs/performance.md "Costs cited by the code"), and most calls it is made for (a sandboxed plugin call)
 * never log.
 */
export function lazyChild(parent: Logger, fields: Record<string, unknown>): Logger {
  return new LazyChild(parent, fields);
}

/** A class, not an object of closures: one allocation per sandboxed call instead of eight functions. */
class LazyChild implements Logger {
  private built: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly fields: Record<string, unknown>,
  ) {}

  private get logger(): Logger {
    this.built ??= this.parent.child(this.fields);
    return this.built;
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.logger.debug(message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.logger.info(message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.logger.warn(message, fields);
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.logger.error(message, fields);
  }

  child(more: Record<string, unknown>): Logger {
    return new LazyChild(this.parent, { ...this.fields, ...more });
  }

  flushSync(): void {
    this.parent.flushSync();
  }
}

function flusher(destination: DestinationStream): () => void {
  const d = destination as DestinationStream & { flushSync?: () => void };
  return () => {
    try {
      d.flushSync?.();
    } catch {
      // nothing buffered yet, or the descriptor is gone: nothing more can be done on the way down
    }
  };
}

function build(level: Level, destination: DestinationStream): Logger {
  return wrap(
    pino(
      {
        level,
        messageKey: MESSAGE_KEY,
        base: { pid: process.pid }, // no hostname: the collector adds it; pid tells cluster workers apart
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        redact: { paths: [...REDACT_PATHS], censor: REDACT_CENSOR },
      },
      destination,
    ),
    flusher(destination),
  );
}

/** A logger writing to `sink` synchronously (tests, tools). Without a sink: the process logger for `json`. */
export function createLogger(level: Level = 'info', sink?: LogSink): Logger {
  return sink ? build(level, sink) : createProcessLogger(level, 'json');
}

/**
 * The logger of a server process, on stderr. `json` writes through an asynchronous buffered destination, so a
 * burst of lines never blocks the event loop on a slow pipe; pino flushes it synchronously when the process exits.
 * `pretty` formats for a person at a terminal (pino-pretty, synchronous: a terminal is not the production path).
 */
export function createProcessLogger(level: Level, format: LogFormat): Logger {
  if (format === 'pretty') {
    return build(
      level,
      pretty({ destination: 2, sync: true, messageKey: MESSAGE_KEY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid' }),
    );
  }
  return build(level, pino.destination({ fd: 2, sync: false }));
}

/** A logger that keeps lines in memory: tests assert on what was logged. */
export function createMemoryLogger(level: Level = 'debug'): Logger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(level, { write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  return Object.assign(logger, { lines });
}
