/**
 * Runs `body` for each item of `items`, at most `concurrency` at a time, pulling the next
 * item only when a runner is free (so a listing is read no further ahead than needed). The
 * first failure (of `body` or of `items`) stops the runners from taking more; the calls
 * still running finish, then it is thrown.
 */
export async function forEachConcurrently<T>(
  items: AsyncIterable<T>,
  concurrency: number,
  body: (item: T) => Promise<void>,
): Promise<void> {
  const iterator = items[Symbol.asyncIterator]();
  let failure: { error: unknown } | undefined;
  const runner = async () => {
    try {
      while (failure === undefined) {
        // An async generator queues concurrent next() calls: each item goes to one runner.
        const next = await iterator.next();
        if (next.done || failure !== undefined) return;
        await body(next.value);
      }
    } catch (error) {
      failure ??= { error };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, runner));
  if (failure !== undefined) {
    await iterator.return?.(undefined);
    throw failure.error;
  }
}
