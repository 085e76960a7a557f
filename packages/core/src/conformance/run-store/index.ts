export { runStoreChecks } from "./checks.js";
export { describeRunStore } from "./describe.js";
export { LIMIT_CODES, RunStoreModel } from "./model.js";
export {
  type RunStoreConformanceOptions,
  type RunStoreSubject,
  SMALL_BOUNDS,
} from "./subject.js";
