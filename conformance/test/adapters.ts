/** fast-check runs per property in the matrix; the mutant tests use the same settings. */
export const MATRIX_RUNS = Object.freeze({ memory: 100, fs: 30, runStore: 50 });
