import { isArtifactError, type Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { METRIC_BYTES_READ, METRIC_BYTES_WRITTEN, withTelemetry } from "../src/index.js";
import { rejectionOf } from "./support/assertions.js";
import { TelemetryHarness } from "./support/sdk.js";

const scope: Scope = { kind: "app", app: "app" };
const chunk = (n: number, fill: number) => new Uint8Array(n).fill(fill);

let harness: TelemetryHarness;
afterEach(() => harness.shutdown());

function traced() {
  harness = new TelemetryHarness();
  return withTelemetry(new MemoryArtifactService(), harness.providers);
}

const sumOf = async (metric: string, operation: string) =>
  (await harness.points(metric, { "artifact.operation": operation })).reduce(
    (sum, point) => sum + (point.value as number),
    0,
  );

describe("upload spans", () => {
  it("spans an upload from open to finish, with the bytes moved and the version published", async () => {
    const service = traced();
    const sink = await service.openUpload(scope, "big.bin");
    await sink.write(chunk(1000, 1));
    await sink.write(chunk(500, 2));
    expect(harness.spans()).toEqual([]); // still in flight
    const meta = await sink.finish();
    expect(meta.size).toBe(1500);
    const span = harness.span("artifact.upload");
    expect(span.attributes).toMatchObject({
      "artifact.operation": "upload",
      "artifact.scope.kind": "app",
      "artifact.transfer.bytes": 1500,
      "artifact.size": 1500,
      "artifact.version": 1,
      "artifact.outcome": "ok",
    });
    expect(await sumOf(METRIC_BYTES_WRITTEN, "upload")).toBe(1500);
  });

  it("ends an aborted upload as cancelled, not as an error, and counts nothing written", async () => {
    const service = traced();
    const sink = await service.openUpload(scope, "big.bin");
    await sink.write(chunk(10, 1));
    await sink.abort(new Error("caller changed its mind"));
    const span = harness.span("artifact.upload");
    expect(span.attributes["artifact.outcome"]).toBe("cancelled");
    expect(span.attributes["artifact.transfer.bytes"]).toBe(10);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(await sumOf(METRIC_BYTES_WRITTEN, "upload")).toBe(0);
  });

  it("ends an upload at its first failure, with its code", async () => {
    const service = traced();
    const sink = await service.openUpload(scope, "big.bin", { maxBytes: 8 });
    await sink.write(chunk(8, 1));
    const error = await rejectionOf(() => sink.write(chunk(1, 1)));
    expect(isArtifactError(error, "artifact_too_large")).toBe(true);
    await sink.abort();
    const span = harness.span("artifact.upload");
    expect(span.attributes["error.type"]).toBe("artifact_too_large");
    expect(span.attributes["artifact.transfer.bytes"]).toBe(8);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("ends the span when the upload cannot even open", async () => {
    const service = traced();
    const error = await rejectionOf(() => service.openUpload(scope, "../escape"));
    expect(isArtifactError(error, "invalid_argument")).toBe(true);
    expect(harness.span("artifact.upload").attributes["error.type"]).toBe("invalid_argument");
  });
});

describe("download spans", () => {
  it("spans a download from open to its last piece and counts the bytes read", async () => {
    const service = traced();
    await service.put(scope, "data", chunk(3000, 9));
    const source = await service.openDownload(scope, "data", {
      range: { offset: 1000, length: 1500 },
    });
    let received = 0;
    for (let piece = await source.read(); piece; piece = await source.read()) {
      received += piece.byteLength;
    }
    expect(received).toBe(1500);
    expect(source.offset).toBe(1000);
    expect(source.length).toBe(1500);
    expect(source.meta.size).toBe(3000);
    const span = harness.span("artifact.download");
    expect(span.attributes).toMatchObject({
      "artifact.selector": "latest",
      "artifact.range.offset": 1000,
      "artifact.range.length": 1500,
      "artifact.size": 3000,
      "artifact.version": 1,
      "artifact.transfer.bytes": 1500,
      "artifact.outcome": "ok",
    });
    expect(await sumOf(METRIC_BYTES_READ, "download")).toBe(1500);
  });

  it("ends a cancelled download as cancelled with the bytes read so far", async () => {
    const service = traced();
    await service.put(scope, "data", chunk(3 * 1024 * 1024, 9));
    const source = await service.openDownload(scope, "data");
    const first = await source.read();
    await source.cancel();
    const span = harness.span("artifact.download");
    expect(span.attributes["artifact.outcome"]).toBe("cancelled");
    expect(span.attributes["artifact.transfer.bytes"]).toBe(first?.byteLength);
  });

  it("ends the span with error.type when the artifact does not exist", async () => {
    const service = traced();
    const error = await rejectionOf(() => service.openDownload(scope, "missing", { version: 2 }));
    expect(isArtifactError(error, "not_found")).toBe(true);
    const span = harness.span("artifact.download");
    expect(span.attributes).toMatchObject({ "error.type": "not_found", "artifact.selector": "2" });
  });
});
