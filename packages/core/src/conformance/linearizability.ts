// A Wing & Gong linearizability checker, with Lowe's memoization: is there one order of the
// operations of a concurrent history that respects real time (an operation that returned
// before another was invoked comes first) and in which each operation, applied to a
// sequential specification one after another, gives exactly the output it gave?
//
// Times are logical: one counter ticks at every invocation and every return, so "returned
// before invoked" is exact and no clock is read. Histories are small (tens of operations):
// the set of linearized operations is a bit mask, and (mask, state) pairs already explored
// are remembered, so the search visits each at most once.

/** One completed operation of a history: who ran it, what it asked, what it answered, when. */
export interface HistoryEntry<I, O> {
  readonly client: number;
  readonly input: I;
  readonly output: O;
  readonly invokedAt: number;
  readonly returnedAt: number;
}

/** A sequential specification: applies one operation, or says its output is impossible. */
export interface SequentialSpec<S, I, O> {
  readonly initial: S;
  /**
   * Every state `input` may leave when it answered `output` in `state` (more than one where
   * the specification lets an operation choose); none if it cannot answer that.
   */
  step(state: S, input: I, output: O): readonly S[];
  /** Equal states have equal keys (the memo's key). */
  key(state: S): string;
}

/** The most operations one history may hold (the bit mask's width). */
export const MAX_HISTORY = 30;

/** Logical time for a history: every invocation and every return takes the next tick. */
export class LogicalClock {
  #now = 0;
  tick(): number {
    this.#now += 1;
    return this.#now;
  }
}

/**
 * One linearization of `history` under `spec` (the indices of its entries in order), or
 * undefined when there is none: the history is not linearizable.
 */
export function linearize<S, I, O>(
  history: readonly HistoryEntry<I, O>[],
  spec: SequentialSpec<S, I, O>,
): number[] | undefined {
  if (history.length > MAX_HISTORY) {
    throw new RangeError(`a history of ${history.length} operations; at most ${MAX_HISTORY}`);
  }
  const everything = 2 ** history.length - 1;
  const explored = new Set<string>();
  const order: number[] = [];
  const search = (done: number, state: S): boolean => {
    if (done === everything) return true;
    // Only an operation invoked before every pending one returned can go next.
    let firstReturn = Number.POSITIVE_INFINITY;
    history.forEach((entry, i) => {
      if ((done & (1 << i)) === 0) firstReturn = Math.min(firstReturn, entry.returnedAt);
    });
    for (const [i, entry] of history.entries()) {
      if ((done & (1 << i)) !== 0 || entry.invokedAt > firstReturn) continue;
      const mask = done | (1 << i);
      for (const next of spec.step(state, entry.input, entry.output)) {
        const key = `${mask}|${spec.key(next)}`;
        if (explored.has(key)) continue;
        explored.add(key);
        order.push(i);
        if (search(mask, next)) return true;
        order.pop();
      }
    }
    return false;
  };
  return search(0, spec.initial) ? order : undefined;
}
