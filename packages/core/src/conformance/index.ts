export {
  COLLIDING_NAMES,
  COLLIDING_SCOPES,
  metadataArb,
  mimeTypeArb,
  nameArb,
  segmentArb,
} from "./arbitraries.js";
export { type CheckOutcome, type ConformanceCheck, skipped } from "./check.js";
export { artifactServiceChecks, type CheckResult, runChecks } from "./checks.js";
export { flipFileByte } from "./corrupt.js";
export { describeArtifactService } from "./describe.js";
export { ConformanceFailure } from "./expect.js";
export { byUtf8Bytes, ReferenceModel } from "./model.js";
export * from "./run-store/index.js";
export type { ArtifactServiceConformanceOptions, ServiceSubject } from "./subject.js";
