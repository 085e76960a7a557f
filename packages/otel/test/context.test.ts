import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { withTelemetry } from "../src/index.js";
import { TelemetryHarness } from "./support/sdk.js";

// With a context manager registered (as any SDK setup does), an operation's span is a child
// of the caller's active span, and is itself active while the adapter works: a wrapper
// inside the wrapper (standing for an adapter's own instrumented client) nests under it.

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});

const scope: Scope = { kind: "app", app: "app" };

it("parents each span on the caller's span and is the parent of spans made inside the call", async () => {
  const harness = new TelemetryHarness();
  const inner = withTelemetry(new MemoryArtifactService(), {
    ...harness.providers,
    adapter: "inner",
  });
  const outer = withTelemetry(inner, { ...harness.providers, adapter: "outer" });
  const tracer = harness.tracerProvider.getTracer("caller");
  await tracer.startActiveSpan("request", async (request) => {
    await outer.put(scope, "a", new Uint8Array(3));
    const sink = await outer.openUpload(scope, "b");
    await sink.write(new Uint8Array(2));
    await sink.finish();
    request.end();
  });
  const spans = harness.spans();
  const find = (name: string, adapter: string) => {
    const found = spans.find(
      (span) => span.name === name && span.attributes["artifact.adapter"] === adapter,
    );
    if (!found) throw new Error(`no ${name} span of ${adapter}`);
    return found;
  };
  const request = spans.find((span) => span.name === "request");
  for (const operation of ["artifact.put", "artifact.upload"]) {
    const outerSpan = find(operation, "outer");
    const innerSpan = find(operation, "inner");
    expect(outerSpan.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(innerSpan.parentSpanContext?.spanId).toBe(outerSpan.spanContext().spanId);
    expect(innerSpan.spanContext().traceId).toBe(request?.spanContext().traceId);
  }
  // The caller's context is untouched once the call returns.
  expect(trace.getActiveSpan()).toBeUndefined();
  await outer.close();
  await harness.shutdown();
});
