export {
  COLLIDING_NAMES,
  COLLIDING_SCOPES,
  metadataArb,
  mimeTypeArb,
  nameArb,
  segmentArb,
} from "./arbitraries.js";
export {
  type CheckOutcome,
  type ConformanceCheck,
  check,
  type Law,
  type LawContext,
  type Need,
  skip,
} from "./check.js";
export {
  ARTIFACT_SERVICE_LAWS,
  artifactServiceChecks,
  type CheckResult,
  runChecks,
} from "./checks.js";
export { contractOnly } from "./contract-only.js";
export { flipFileByte } from "./corrupt.js";
export { describeArtifactService } from "./describe.js";
export { ConformanceFailure } from "./expect.js";
export {
  FAULT_KINDS,
  FaultArming,
  type FaultInjection,
  type FaultKind,
} from "./faults/injection.js";
export { artifactCommands, MAX_COMMANDS, type SequenceHooks } from "./generators.js";
export { byUtf8Bytes, ModelCoverage, ReferenceModel } from "./model.js";
export { BOUNDARY_SIZES, bytesArb, seededBytes, sizeArb } from "./payload.js";
export * from "./run-store/index.js";
export {
  type ArtifactServiceConformanceOptions,
  type RepairableService,
  repairFromAnotherInstance,
  type ServiceHolder,
  type ServiceSubject,
} from "./subject.js";
