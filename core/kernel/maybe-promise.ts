// A value that is there now or arrives later. The hot path of an /api call asks in-memory things (the key cache,
// the memory state, the plan cache) that answer at once; as async functions each answer cost a promise and a trip
// through the microtask queue, a dozen of them per call (issue 14: ~6 us of a cache hit's ~44 us on the event
// loop). Functions that usually answer from memory return MaybePromise, and callers on the hot path go on at once
// when the value is there (`after`); `await` still works on either.
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)` now when the value is there, when it arrives otherwise. A throw of `next` is thrown (or rejects). */
export function after<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
