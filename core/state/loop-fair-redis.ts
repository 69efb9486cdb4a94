// ioredis with a command deadline that a stalled event loop cannot break on its own. ioredis starts a timer per
// command; when the gateway's thread was busy past the deadline (a long garbage collection, a CPU-starved host),
// Node runs expired timers before it reads the sockets, so a reply that arrived in time was declared timed out,
// the breaker opened and callers whose plan quota lives in Redis were refused with 503 until the next probe. Here
// the timer only marks the deadline; the verdict waits one turn (setImmediate runs after the sockets are read),
// so a reply already in the socket settles the command first, and a Redis that really hangs still fails it at
// the deadline plus one turn. This reaches into ioredis's Command (the timer field its _clearTimers clears on
// settle) because ioredis has no hook for it: test/state/loop-fair-redis.test.ts pins that behaviour.
import { type Command, Redis } from 'ioredis';

/** The part of a Command this reads and writes (the timer field is private in ioredis's types). */
interface TimedCommand {
  _commandTimeoutTimer?: NodeJS.Timeout;
  isResolved: boolean;
  reject(err: Error): void;
}

function loopFairTimeout(this: Command, ms: number): void {
  const command = this as unknown as TimedCommand;
  if (command._commandTimeoutTimer) return;
  command._commandTimeoutTimer = setTimeout(
    () =>
      setImmediate(() => {
        if (!command.isResolved) command.reject(new Error('Command timed out'));
      }),
    ms,
  );
}

export class LoopFairRedis extends Redis {
  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    command.setTimeout = loopFairTimeout;
    return super.sendCommand(command, stream);
  }
}
