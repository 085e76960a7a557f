/**
 * Awaits every promise, then answers as Promise.all would: the values, or the first
 * rejection. Unlike Promise.all it never answers while a request is still in flight, so an
 * operation that fails cannot keep changing the store after its caller heard it failed
 * (a parallel delete whose other requests land after the failure was reported, found by the
 * kit's fault laws on gcs and s3).
 */
export async function allSettledOrFirstFailure<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(promises);
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}

/**
 * `work`'s outcome, or what `late` returns (or throws) once `ms` have passed with `work` still
 * pending: a bound for a wait on something that may never settle. The timer goes either way.
 */
export async function settleWithin<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}
