import { isArtifactError } from "@artifact-kit/core";
import { InMemoryRunStore } from "@artifact-kit/run-store";
import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { METRIC_BYTES_READ, METRIC_BYTES_WRITTEN, withRunStoreTelemetry } from "../src/index.js";
import { everyRecordedValue, rejectionOf } from "./support/assertions.js";
import { TelemetryHarness } from "./support/sdk.js";

let harness: TelemetryHarness;
afterEach(() => harness.shutdown());

function traced(options: Parameters<typeof withRunStoreTelemetry>[1] = {}) {
  harness = new TelemetryHarness();
  const inner = new InMemoryRunStore({ bounds: { maxBytesPerArtifact: 16 } });
  return { inner, store: withRunStoreTelemetry(inner, { ...harness.providers, ...options }) };
}

describe("withRunStoreTelemetry", () => {
  it("spans every call without run ids, step ids or paths by default", async () => {
    const { store, inner } = traced();
    await store.register("run-secret", "step-secret", "out/secret.txt", "héllo");
    await store.register("run-secret", "step-secret", "out/b.bin", new Uint8Array(4));
    expect(await store.find("run-secret", "out/secret.txt")).toBe("héllo");
    expect(await store.find("run-secret", "absent")).toBeUndefined();
    expect(await store.artifacts("run-secret")).toEqual(await inner.artifacts("run-secret"));
    await store.remove("run-secret", "out/b.bin");
    await store.clear("run-secret");
    expect(store.bounds()).toEqual(inner.bounds());

    expect(harness.spanNames()).toEqual([
      "artifact.run.register",
      "artifact.run.register",
      "artifact.run.find",
      "artifact.run.find",
      "artifact.run.artifacts",
      "artifact.run.remove",
      "artifact.run.clear",
    ]);
    const [register] = harness.spans();
    expect(register?.attributes).toEqual({
      "artifact.operation": "run.register",
      "artifact.adapter": "InMemoryRunStore",
      "artifact.size": 6, // UTF-8 bytes of "héllo"
      "artifact.outcome": "ok",
    });
    const [found, absent] = harness.spans().filter((span) => span.name === "artifact.run.find");
    expect(found?.attributes).toMatchObject({ "artifact.result.count": 1, "artifact.size": 6 });
    expect(absent?.attributes["artifact.result.count"]).toBe(0);
    expect(harness.span("artifact.run.artifacts").attributes).toMatchObject({
      "artifact.result.count": 2,
      "artifact.size": 10,
    });
    // One collection: metrics are delta, so each collection holds what happened since the last.
    const all = await harness.metrics();
    const sums = (name: string) =>
      Object.fromEntries(
        (all.find((metric) => metric.descriptor.name === name)?.dataPoints ?? []).map((point) => [
          point.attributes["artifact.operation"],
          point.value,
        ]),
      );
    expect(sums(METRIC_BYTES_WRITTEN)).toEqual({ "run.register": 10 });
    expect(sums(METRIC_BYTES_READ)).toEqual({ "run.find": 6, "run.artifacts": 10 });
    expect((await everyRecordedValue(harness)).join("\n")).not.toMatch(/secret/);
  });

  it("records run ids, step ids and paths when asked to", async () => {
    const { store } = traced({ recordNames: "plain", recordScopeIds: "plain" });
    await store.register("run-1", "render", "out/a.txt", "x");
    expect(harness.span("artifact.run.register").attributes).toMatchObject({
      "artifact.run.id": "run-1",
      "artifact.run.step": "render",
      "artifact.name": "out/a.txt",
    });
  });

  it("marks a refused register with the bound's error code and passes the error through", async () => {
    const { store } = traced();
    const error = await rejectionOf(() => store.register("run", "step", "big", "x".repeat(17)));
    expect(isArtifactError(error, "quota_exceeded")).toBe(true);
    const span = harness.span("artifact.run.register");
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "quota_exceeded" });
    expect(span.attributes["error.type"]).toBe("quota_exceeded");
    expect(await harness.points(METRIC_BYTES_WRITTEN)).toEqual([]);
  });
});
