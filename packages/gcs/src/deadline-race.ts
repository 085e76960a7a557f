import type { Deadline } from "@artifact-kit/core";

/**
 * Settles with `work`, or rejects as soon as the deadline passes. @google-cloud/storage 7
 * takes no per-call AbortSignal, so an abandoned request runs on in the background; this is
 * used only for requests whose late success is harmless (reads, allocations).
 */
export function raceDeadline<T>(work: Promise<T>, deadline: Deadline): Promise<T> {
  const signal = deadline.toSignal();
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
