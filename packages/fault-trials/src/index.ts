// Test tooling shared by the object-store adapters (s3, gcs, azure): seeded fault trials through
// the test proxy, and put races from many OS processes.

export { type ArmedFault, type FaultKind, MAX_DELAY_MS } from "./armed-fault.js";
export { checkLane } from "./check.js";
export { trialOptionsFromEnv } from "./env.js";
export { type LaneServices, OPERATION_TIMEOUT_MS, type TrialService } from "./lane.js";
export {
  type BucketDump,
  type DumpedObject,
  normaliseDump,
  observeLayout,
  writeLayoutScenario,
} from "./layout.js";
export { type PutOutcome, putFromProcesses } from "./processes.js";
export type { RaceOpener } from "./put-worker.js";
export { SeededRandom } from "./random.js";
export type { DeleteRecord, LaneLog, PutRecord } from "./records.js";
export { ServerRelay } from "./relay.js";
export {
  type ConnectionFaultBackend,
  describeConnectionFaults,
} from "./suites/connection-faults.js";
export { describeFaultTrials } from "./suites/fault-trials.js";
export { describeFaults, type FaultBackend, type FaultContext, failure } from "./suites/faults.js";
export { describeLayoutCompatibility, type LayoutBackend } from "./suites/layout.js";
export { describeRaces, type RaceBackend } from "./suites/races.js";
export { describeServerKill, type ServerKillBackend } from "./suites/server-kill.js";
export {
  type FaultTrialOptions,
  type FaultTrialReport,
  type FaultTrialTarget,
  runFaultTrials,
} from "./trials.js";
