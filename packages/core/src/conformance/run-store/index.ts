export { RUN_STORE_LAWS, runStoreChecks } from "./checks.js";
export { runStoreCommands } from "./commands.js";
export type { RunStoreContext, RunStoreLaw } from "./context.js";
export { COUNTING_LAWS } from "./counting-checks.js";
export { describeRunStore } from "./describe.js";
export { EDGE_LAWS } from "./edge-checks.js";
export { LIMIT_CODES, RunStoreCoverage, RunStoreModel } from "./model.js";
export { DEFAULT_SCALE, SCALE_LAWS } from "./scale-checks.js";
export {
  type RunStoreConformanceOptions,
  type RunStoreHolder,
  type RunStoreSubject,
  SMALL_BOUNDS,
} from "./subject.js";
