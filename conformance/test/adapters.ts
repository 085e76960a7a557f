/**
 * fast-check runs per property in the matrix; the mutant tests use the same settings.
 * `faults`: runs of the fault law over each network adapter (over 200 faults each).
 */
export const MATRIX_RUNS = Object.freeze({
  memory: 100,
  fs: 30,
  postgres: 20,
  /** The object-store protocol over its in-memory bucket: gcs's setting in the matrix. */
  objectStore: 20,
  runStore: 50,
  faults: 16,
});
