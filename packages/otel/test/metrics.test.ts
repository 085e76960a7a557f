import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Scope } from "@artifact-kit/core";
import { contractOnly } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { fsShards, memoryShards, ShardedArtifactService } from "@artifact-kit/sharded";
import {
  DataPointType,
  type HistogramMetricData,
  type MetricData,
} from "@opentelemetry/sdk-metrics";
import { afterEach, describe, expect, it } from "vitest";
import {
  METRIC_BYTES_READ,
  METRIC_BYTES_WRITTEN,
  METRIC_ERRORS,
  METRIC_OPERATION_DURATION,
  METRIC_QUOTA_LIMIT,
  METRIC_QUOTA_USAGE,
  METRIC_ROUTER_ACTIVE_SCOPES,
  METRIC_ROUTER_ACTIVE_SCOPES_LIMIT,
  METRIC_ROUTER_EVICTIONS,
  METRIC_ROUTER_QUEUE_LENGTH,
  METRIC_ROUTER_QUEUE_LIMIT,
  withTelemetry,
} from "../src/index.js";
import { rejectionOf } from "./support/assertions.js";
import { TelemetryHarness } from "./support/sdk.js";

const scope: Scope = { kind: "user", app: "app", user: "ada" };
const bytes = (n: number) => new Uint8Array(n).fill(7);

let harness: TelemetryHarness;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await harness.shutdown();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function metric(all: MetricData[], name: string): MetricData {
  const found = all.find((data) => data.descriptor.name === name);
  if (!found) throw new Error(`no metric ${name}: ${all.map((data) => data.descriptor.name)}`);
  return found;
}

const pointsWith = (data: MetricData, attributes: Record<string, unknown>) =>
  (data.dataPoints as { attributes: Record<string, unknown>; value: unknown }[]).filter((point) =>
    Object.entries(attributes).every(([key, value]) => point.attributes[key] === value),
  );

describe("operation metrics", () => {
  it("records durations by operation, adapter and outcome, bytes written and read, and errors by code", async () => {
    harness = new TelemetryHarness();
    const service = withTelemetry(new MemoryArtifactService({ maxScopeBytes: 1000 }), {
      ...harness.providers,
      adapter: "memory",
    });
    await service.put(scope, "a", bytes(300));
    await service.put(scope, "b", bytes(400));
    await rejectionOf(() => service.put(scope, "c", bytes(400))); // over maxScopeBytes
    await service.get(scope, "a");
    await rejectionOf(() => service.get(scope, "missing"));
    await rejectionOf(() => service.head(scope, "missing"));

    const all = await harness.metrics();
    const duration = metric(all, METRIC_OPERATION_DURATION) as HistogramMetricData;
    expect(duration.descriptor.unit).toBe("s");
    const okPuts = pointsWith(duration, {
      "artifact.operation": "put",
      "artifact.adapter": "memory",
      "artifact.outcome": "ok",
    });
    expect(okPuts).toHaveLength(1);
    const okPut = okPuts[0]?.value as { count: number; sum: number; min: number };
    expect(okPut.count).toBe(2);
    expect(okPut.min).toBeGreaterThan(0);
    expect(okPut.sum).toBeLessThan(10); // seconds, not milliseconds
    const failedPut = pointsWith(duration, {
      "artifact.operation": "put",
      "artifact.outcome": "error",
    });
    expect(failedPut.map((point) => point.attributes["error.type"])).toEqual(["quota_exceeded"]);
    expect(failedPut[0]?.value).toMatchObject({ count: 1 });

    const written = metric(all, METRIC_BYTES_WRITTEN);
    expect(written.descriptor.unit).toBe("By");
    expect(
      pointsWith(written, { "artifact.operation": "put" }).map((point) => point.value),
    ).toEqual([700]);
    const read = metric(all, METRIC_BYTES_READ);
    expect(pointsWith(read, { "artifact.operation": "get" }).map((point) => point.value)).toEqual([
      300,
    ]);

    const errors = metric(all, METRIC_ERRORS);
    const errorCounts = Object.fromEntries(
      errors.dataPoints.map((point) => [
        `${point.attributes["artifact.operation"]} ${point.attributes["error.type"]}`,
        point.value,
      ]),
    );
    expect(errorCounts).toEqual({
      "put quota_exceeded": 1,
      "get not_found": 1,
      "head not_found": 1,
    });

    // Metric attributes are low-cardinality: never a name, scope id, size or version.
    const keys = new Set(
      all.flatMap((data) => data.dataPoints.flatMap((p) => Object.keys(p.attributes))),
    );
    expect([...keys].sort()).toEqual(
      [
        "artifact.adapter",
        "artifact.operation",
        "artifact.outcome",
        "error.type",
        "artifact.quota.applies_to",
        "artifact.quota.bound",
      ].sort(),
    );
  });
});

describe("bytes counters", () => {
  it("are monotonic sums, shared by wrappers of one adapter, and still export bytes counted just before close", async () => {
    harness = new TelemetryHarness();
    const options = { ...harness.providers, adapter: "memory" };
    const first = withTelemetry(new MemoryArtifactService(), options);
    const second = withTelemetry(new MemoryArtifactService(), options);
    await first.put(scope, "a", bytes(10));
    await second.put(scope, "a", bytes(20));
    await first.get(scope, "a");
    await first.close();
    await second.close();

    const all = await harness.metrics();
    const written = metric(all, METRIC_BYTES_WRITTEN);
    expect(written.dataPointType).toBe(DataPointType.SUM);
    expect((written as { isMonotonic?: boolean }).isMonotonic).toBe(true);
    expect(pointsWith(written, { "artifact.adapter": "memory" }).map((p) => p.value)).toEqual([30]);
    expect(
      pointsWith(metric(all, METRIC_BYTES_READ), { "artifact.operation": "get" }).map(
        (p) => p.value,
      ),
    ).toEqual([10]);

    // Delta temporality: the next collection holds only what was moved since.
    const third = withTelemetry(new MemoryArtifactService(), options);
    await third.put(scope, "a", bytes(5));
    const next = await harness.points(METRIC_BYTES_WRITTEN, { "artifact.operation": "put" });
    expect(next.map((point) => point.value)).toEqual([5]);
    await third.close();
  });
});

describe("observable gauges", () => {
  it("reports every configured quota bound, and stops once the service is closed", async () => {
    harness = new TelemetryHarness();
    const service = withTelemetry(new MemoryArtifactService({ maxScopeBytes: 1234 }), {
      ...harness.providers,
      adapter: "memory",
    });
    const limits = await harness.points(METRIC_QUOTA_LIMIT, { "artifact.adapter": "memory" });
    const byBound = Object.fromEntries(
      limits.map((point) => [point.attributes["artifact.quota.bound"], point.value]),
    );
    expect(byBound).toEqual(service.capabilities().quotas.bounds);
    expect(byBound.maxScopeBytes).toBe(1234);
    expect(
      limits.every((point) => point.attributes["artifact.quota.applies_to"] === "global"),
    ).toBe(true);
    await service.close();
    expect(await harness.points(METRIC_QUOTA_LIMIT)).toEqual([]);
  });

  it("reports the router's active scopes, queue and their limits from status()", async () => {
    harness = new TelemetryHarness();
    const router = new ShardedArtifactService(memoryShards(), {
      maxActiveScopes: 5,
      maxRouterQueue: 7,
    });
    const service = withTelemetry(router, harness.providers);
    for (const user of ["a", "b", "c"]) await service.put({ ...scope, user }, "x", bytes(1));
    expect(service.status()).toEqual(router.status());
    const value = async (name: string) =>
      (await harness.points(name, { "artifact.adapter": "ShardedArtifactService" })).map(
        (point) => point.value,
      );
    expect(await value(METRIC_ROUTER_ACTIVE_SCOPES)).toEqual([3]);
    expect(await value(METRIC_ROUTER_ACTIVE_SCOPES_LIMIT)).toEqual([5]);
    expect(await value(METRIC_ROUTER_QUEUE_LENGTH)).toEqual([0]);
    expect(await value(METRIC_ROUTER_QUEUE_LIMIT)).toEqual([7]);
    expect(await value(METRIC_ROUTER_EVICTIONS)).toEqual([0]);
    await service.close();
  });

  it("counts the router's evictions of idle durable workers", async () => {
    harness = new TelemetryHarness();
    const root = await mkdtemp(join(tmpdir(), "otel-router-"));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    // One worker at a time over a durable adapter: each new scope reclaims the idle one.
    const router = new ShardedArtifactService(await fsShards(root), { maxActiveScopes: 1 });
    const service = withTelemetry(router, harness.providers);
    for (const user of ["a", "b", "c"]) await service.put({ ...scope, user }, "x", bytes(1));
    expect(router.status().evictions).toBe(2);
    const all = await harness.metrics();
    const pointValues = (name: string) =>
      all.find((metric) => metric.descriptor.name === name)?.dataPoints.map((point) => point.value);
    expect(pointValues(METRIC_ROUTER_EVICTIONS)).toEqual([2]);
    expect(pointValues(METRIC_ROUTER_ACTIVE_SCOPES)).toEqual([1]);
    await service.close();
  });

  it("reports the usage a service's status() gives against its bounds, and no router gauges", async () => {
    harness = new TelemetryHarness();
    const service = withTelemetry(new MemoryArtifactService(), {
      ...harness.providers,
      adapter: "memory",
    });
    await service.put(scope, "a", bytes(300));
    await service.put({ ...scope, user: "bob" }, "a", bytes(200));
    const all = await harness.metrics();
    const usage = all.find((metric) => metric.descriptor.name === METRIC_QUOTA_USAGE);
    const byBound = Object.fromEntries(
      (usage?.dataPoints ?? []).map((point) => [
        point.attributes["artifact.quota.bound"],
        point.value,
      ]),
    );
    expect(byBound).toEqual({ maxTotalBytes: 500, maxTotalArtifacts: 2 });
    expect(service.status()).toMatchObject({ quotaUsage: byBound });
    expect(all.some((metric) => metric.descriptor.name.startsWith("artifact.router."))).toBe(false);
    await service.close();
  });

  it("reports bounds only for a service without status()", async () => {
    harness = new TelemetryHarness();
    const inner = new MemoryArtifactService();
    const withoutStatus = contractOnly(inner);
    const service = withTelemetry(withoutStatus, harness.providers);
    await service.put(scope, "a", bytes(3));
    const names = (await harness.metrics()).map((metric) => metric.descriptor.name);
    expect(names).toContain(METRIC_QUOTA_LIMIT);
    expect(names).not.toContain(METRIC_QUOTA_USAGE);
    expect("status" in service).toBe(false);
    await service.close();
  });
});
