import { hasTransfer, isArtifactError, type Scope } from "@artifact-kit/core";
import { contractOnly } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { INSTRUMENTATION_SCOPE, withTelemetry } from "../src/index.js";
import { everyRecordedValue, rejectionOf } from "./support/assertions.js";
import { TelemetryHarness } from "./support/sdk.js";

const scope: Scope = { kind: "session", app: "acme-app", user: "ada-lovelace", session: "s-77" };
const secretName = "reports/salary-ada.csv";
const data = new TextEncoder().encode("top secret bytes");

let harness: TelemetryHarness;
afterEach(async () => {
  await harness?.shutdown();
});

function traced(options: Parameters<typeof withTelemetry>[1] = {}) {
  harness = new TelemetryHarness();
  const inner = new MemoryArtifactService();
  return { inner, service: withTelemetry(inner, { ...harness.providers, ...options }) };
}

describe("spans", () => {
  it("names each operation's span artifact.<operation> and describes it without identifiers", async () => {
    const { service } = traced();
    await service.put(scope, secretName, data, { mimeType: "text/csv" });
    await service.get(scope, secretName);
    await service.head(scope, secretName, { version: 1 });
    await service.listNames(scope, { limit: 5 });
    await service.listVersions(scope, secretName);
    await service.list(scope);
    await service.delete(scope, secretName, "all");
    await service.close();
    expect(harness.spanNames()).toEqual([
      "artifact.put",
      "artifact.get",
      "artifact.head",
      "artifact.list_names",
      "artifact.list_versions",
      "artifact.list",
      "artifact.delete",
      "artifact.close",
    ]);

    const put = harness.span("artifact.put");
    expect(put.kind).toBe(SpanKind.INTERNAL);
    expect(put.instrumentationScope.name).toBe(INSTRUMENTATION_SCOPE);
    expect(put.status.code).toBe(SpanStatusCode.UNSET);
    expect(put.attributes).toEqual({
      "artifact.operation": "put",
      "artifact.adapter": "MemoryArtifactService",
      "artifact.scope.kind": "session",
      "artifact.size": data.byteLength,
      "artifact.version": 1,
      "artifact.outcome": "ok",
    });
    expect(harness.span("artifact.get").attributes).toMatchObject({
      "artifact.selector": "latest",
      "artifact.version": 1,
      "artifact.size": data.byteLength,
    });
    expect(harness.span("artifact.head").attributes["artifact.selector"]).toBe("1");
    expect(harness.span("artifact.list_names").attributes).toMatchObject({
      "artifact.page.limit": 5,
      "artifact.result.count": 1,
      "artifact.page.has_next": false,
    });
    expect(harness.span("artifact.list").attributes["artifact.result.count"]).toBe(1);
    expect(harness.span("artifact.delete").attributes["artifact.selector"]).toBe("all");

    // Nothing that was passed in as an identifier or as data appears anywhere.
    const recorded = (await everyRecordedValue(harness)).join("\n");
    for (const secret of [secretName, "salary", "acme-app", "ada-lovelace", "s-77", "top secret"]) {
      expect(recorded).not.toContain(secret);
    }
  });

  it("traces listScopes as artifact.list_scopes, the level listed as scope attributes", async () => {
    const { service } = traced({ recordScopeIds: "plain" });
    await service.put(scope, secretName, data);
    const page = await service.listScopes({ kind: "user", app: "acme-app", limit: 3 });
    expect(page.items).toEqual([{ kind: "user", app: "acme-app", user: "ada-lovelace" }]);
    await service.listScopes();
    const [users, apps] = harness.spans().filter((span) => span.name === "artifact.list_scopes");
    expect(users?.attributes).toEqual({
      "artifact.operation": "list_scopes",
      "artifact.adapter": "MemoryArtifactService",
      "artifact.scope.kind": "user",
      "artifact.scope.app": "acme-app",
      "artifact.page.limit": 3,
      "artifact.result.count": 1,
      "artifact.page.has_next": false,
      "artifact.outcome": "ok",
    });
    expect(apps?.attributes).toMatchObject({
      "artifact.scope.kind": "app",
      "artifact.result.count": 1,
    });
    expect(apps?.attributes["artifact.scope.app"]).toBeUndefined();
  });

  it("marks a failure with error status, error.type = the ArtifactError code, and rethrows it untouched", async () => {
    const { service, inner } = traced();
    const direct = await rejectionOf(() => inner.get(scope, secretName, { version: 3 }));
    const error = await rejectionOf(() => service.get(scope, secretName, { version: 3 }));
    expect(isArtifactError(error, "not_found")).toBe(true);
    expect((error as Error).message).toBe((direct as Error).message);

    const span = harness.span("artifact.get");
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "not_found" });
    expect(span.attributes).toMatchObject({
      "error.type": "not_found",
      "artifact.outcome": "error",
      "artifact.selector": "3",
    });
    // The message names the artifact, so it is not recorded, not even as an exception event.
    expect(span.events).toEqual([]);
  });

  it("describes malformed arguments as far as it can and lets the adapter reject them", async () => {
    const { service } = traced({ recordNames: "plain", recordScopeIds: "plain" });
    const badScope = await rejectionOf(() => service.put(null as never, "a", data));
    const badName = await rejectionOf(() => service.put(scope, 42 as never, data));
    const badData = await rejectionOf(() => service.put(scope, "a", "text" as never));
    const badOptions = await rejectionOf(() => service.get(scope, "a", 7 as never));
    for (const error of [badScope, badName, badData, badOptions]) {
      expect(isArtifactError(error, "invalid_argument")).toBe(true);
    }
    const puts = harness.spans().filter((span) => span.name === "artifact.put");
    expect(puts.map((span) => span.attributes["error.type"])).toEqual([
      "invalid_argument",
      "invalid_argument",
      "invalid_argument",
    ]);
    expect(puts[0]?.attributes["artifact.scope.kind"]).toBeUndefined();
    expect(puts[1]?.attributes["artifact.name"]).toBeUndefined();
    expect(puts[2]?.attributes["artifact.size"]).toBeUndefined();
  });

  it("records names and scope ids in plain text only when asked to", async () => {
    const { service } = traced({ recordNames: "plain", recordScopeIds: "plain" });
    await service.put(scope, secretName, data);
    expect(harness.span("artifact.put").attributes).toMatchObject({
      "artifact.name": secretName,
      "artifact.scope.app": "acme-app",
      "artifact.scope.user": "ada-lovelace",
      "artifact.scope.session": "s-77",
    });
  });

  it("records keyed digests that correlate under one key and differ under another", async () => {
    const key = "shared-digest-key";
    const digestsOf = async (digestKey: string, name: string) => {
      const { service } = traced({ recordNames: "digest", recordScopeIds: "digest", digestKey });
      await service.put(scope, name, data);
      const { attributes } = harness.span("artifact.put");
      await harness.shutdown();
      return [attributes["artifact.name"], attributes["artifact.scope.user"]];
    };
    const [name, user] = await digestsOf(key, secretName);
    expect(name).toMatch(/^[0-9a-f]{32}$/);
    expect(user).toMatch(/^[0-9a-f]{32}$/);
    expect(name).not.toBe(user);
    expect(await digestsOf(key, secretName)).toEqual([name, user]);
    const [otherKeyName] = await digestsOf("another-key", secretName);
    expect(otherKeyName).not.toBe(name);
    const [otherName, sameUser] = await digestsOf(key, "reports/other.csv");
    expect(otherName).not.toBe(name);
    expect(sameUser).toBe(user);
  });

  it("uses the adapter option as artifact.adapter", async () => {
    const { service } = traced({ adapter: "memory-primary" });
    await service.put(scope, "a", data);
    expect(harness.span("artifact.put").attributes["artifact.adapter"]).toBe("memory-primary");
  });

  it("records close, and a call after close fails with error.type closed", async () => {
    const { service } = traced();
    await service.close();
    const error = await rejectionOf(() => service.head(scope, "a"));
    expect(isArtifactError(error, "closed")).toBe(true);
    expect(harness.span("artifact.close").attributes["artifact.outcome"]).toBe("ok");
    expect(harness.span("artifact.head").attributes["error.type"]).toBe("closed");
  });
});

describe("the wrapped service's shape", () => {
  it("returns the service's own capabilities object", () => {
    const { service, inner } = traced();
    expect(service.capabilities()).toBe(inner.capabilities());
  });

  it("offers streaming transfer exactly when the wrapped service does", () => {
    const { service, inner } = traced();
    expect(hasTransfer(service)).toBe(true);
    const withoutTransfer = contractOnly(inner);
    const wrapped = withTelemetry(withoutTransfer, harness.providers);
    expect(hasTransfer(wrapped)).toBe(false);
    expect("openUpload" in wrapped || "openDownload" in wrapped).toBe(false);
    expect("status" in wrapped).toBe(false);
  });
});
