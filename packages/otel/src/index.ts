export * from "./attributes.js";
export { METRIC_BYTES_READ, METRIC_BYTES_WRITTEN } from "./byte-totals.js";
export {
  METRIC_QUOTA_LIMIT,
  METRIC_QUOTA_USAGE,
  METRIC_ROUTER_ACTIVE_SCOPES,
  METRIC_ROUTER_ACTIVE_SCOPES_LIMIT,
  METRIC_ROUTER_EVICTIONS,
  METRIC_ROUTER_QUEUE_LENGTH,
  METRIC_ROUTER_QUEUE_LIMIT,
} from "./gauges.js";
export type { IdentifierRecording } from "./identifiers.js";
export { INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION } from "./instrumentation.js";
export type { TelemetryOptions } from "./options.js";
export { withRunStoreTelemetry } from "./run-store.js";
export { type WithTelemetry, withTelemetry } from "./service.js";
export {
  DURATION_BUCKETS_SECONDS,
  METRIC_ERRORS,
  METRIC_OPERATION_DURATION,
} from "./telemetry.js";
