import type { ArtifactService, QuotaReport } from "@artifact-kit/core";
import type { Attributes, BatchObservableCallback, Observable } from "@opentelemetry/api";
import { ATTR_ADAPTER, ATTR_QUOTA_APPLIES_TO, ATTR_QUOTA_BOUND } from "./attributes.js";
import type { Telemetry } from "./telemetry.js";

export const METRIC_QUOTA_LIMIT = "artifact.quota.limit";
export const METRIC_QUOTA_USAGE = "artifact.quota.usage";
export const METRIC_ROUTER_ACTIVE_SCOPES = "artifact.router.active_scopes";
export const METRIC_ROUTER_ACTIVE_SCOPES_LIMIT = "artifact.router.active_scopes.limit";
export const METRIC_ROUTER_QUEUE_LENGTH = "artifact.router.queue.length";
export const METRIC_ROUTER_QUEUE_LIMIT = "artifact.router.queue.limit";
export const METRIC_ROUTER_EVICTIONS = "artifact.router.evictions";

/**
 * The `status()` fields read, when a service has `status()` and reports them. `quotaUsage`
 * maps a bound's name (as in `capabilities().quotas.bounds`) to how much of it is used; the
 * router fields are those of `@artifact-kit/sharded`'s RouterStatus. Fields that are absent
 * or not finite numbers are not reported.
 */
const ROUTER_FIELDS = {
  activeScopes: METRIC_ROUTER_ACTIVE_SCOPES,
  maxActiveScopes: METRIC_ROUTER_ACTIVE_SCOPES_LIMIT,
  queuedRequests: METRIC_ROUTER_QUEUE_LENGTH,
  maxRouterQueue: METRIC_ROUTER_QUEUE_LIMIT,
} as const;

type Fields = Record<string, unknown>;

/** Observes a service's quota bounds and, where `status()` reports them, usage and router load. */
export function observeService(telemetry: Telemetry, service: ArtifactService): () => void {
  const { status } = service as { status?: unknown };
  const readStatus = typeof status === "function" ? () => status.call(service) : undefined;
  return observeStore(telemetry, service.capabilities().quotas, readStatus);
}

/**
 * Registers one batch callback for every gauge of one wrapped store; the returned function
 * unregisters it (on close), so a closed store stops reporting.
 */
function observeStore(
  telemetry: Telemetry,
  quotas: QuotaReport,
  readStatus: (() => unknown) | undefined,
): () => void {
  const { meter, adapter } = telemetry;
  const limit = meter.createObservableGauge(METRIC_QUOTA_LIMIT, {
    description: "A configured quota bound, by artifact.quota.bound (its name in capabilities()).",
  });
  const usage = meter.createObservableGauge(METRIC_QUOTA_USAGE, {
    description: "How much of a quota bound is used, where the store's status() reports it.",
  });
  const router = Object.fromEntries(
    Object.entries(ROUTER_FIELDS).map(([field, name]) => [
      field,
      meter.createObservableGauge(name, { description: `The router's status().${field}.` }),
    ]),
  );
  // Evictions only grow: a cumulative counter, so that backends can take its rate.
  const evictions = meter.createObservableCounter(METRIC_ROUTER_EVICTIONS, {
    description: "Idle workers the router has closed to admit others, since it started.",
    unit: "{eviction}",
  });

  const base: Attributes = { [ATTR_ADAPTER]: adapter };
  const boundAttributes = new Map(
    Object.keys(quotas.bounds).map((bound) => [
      bound,
      { ...base, [ATTR_QUOTA_BOUND]: bound, [ATTR_QUOTA_APPLIES_TO]: quotas.appliesTo },
    ]),
  );
  const callback: BatchObservableCallback = (result) => {
    for (const [bound, value] of Object.entries(quotas.bounds)) {
      result.observe(limit, value, boundAttributes.get(bound));
    }
    const reported = readFields(readStatus);
    if (reported === undefined) return;
    const used = asFields(reported.quotaUsage);
    for (const [bound, attributes] of boundAttributes) {
      const value = used?.[bound];
      if (isCount(value)) result.observe(usage, value, attributes);
    }
    for (const [field, gauge] of Object.entries(router)) {
      const value = reported[field];
      if (isCount(value)) result.observe(gauge, value, base);
    }
    if (isCount(reported.evictions)) result.observe(evictions, reported.evictions, base);
  };
  const observables: Observable[] = [limit, usage, evictions, ...Object.values(router)];
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}

/** The status fields, or undefined when there is no status() or it fails (it is only a window). */
function readFields(readStatus: (() => unknown) | undefined): Fields | undefined {
  if (readStatus === undefined) return undefined;
  try {
    return asFields(readStatus());
  } catch {
    return undefined;
  }
}

function asFields(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null ? (value as Fields) : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
