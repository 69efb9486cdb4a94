// A value that is there now or arrives later. The hot path of an /api call asks in-memory things (the key cache,
// the memory state, the plan cache) that answer at once; as async functions each answer cost a promise and a trip
// through the microtask queue, a dozen of them per call (a tenth of a cache hit's event-loop time:
// docs/performance.md "Costs cited by the code"). Functions that usually answer from memory return MaybePromise, and
// callers on the hot path go on at once when the value is there (`after`); `await` still works on either.
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)` now when the value is there, when it arrives otherwise. A throw of `next` is thrown (or rejects). */
export function after<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
