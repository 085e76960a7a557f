import { isArtifactError } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { InMemoryRunStore } from "@artifact-kit/run-store";
import { describe, expect, it } from "vitest";
import { type TelemetryOptions, withRunStoreTelemetry, withTelemetry } from "../src/index.js";

const field = (options: unknown): string | undefined => {
  try {
    withTelemetry(new MemoryArtifactService(), options as TelemetryOptions);
  } catch (error) {
    if (isArtifactError(error, "invalid_argument")) return String(error.detail.field);
    throw error;
  }
  return undefined;
};

describe("options", () => {
  it("rejects unknown keys and bad values with invalid_argument naming the option", () => {
    expect(field({ recordBytes: true })).toBe("telemetryOptions.recordBytes");
    expect(field("all")).toBe("telemetryOptions");
    expect(field({ recordNames: true })).toBe("telemetryOptions.recordNames");
    expect(field({ recordScopeIds: "hash" })).toBe("telemetryOptions.recordScopeIds");
    expect(field({ tracerProvider: {} })).toBe("telemetryOptions.tracerProvider");
    expect(field({ meterProvider: null })).toBe("telemetryOptions.meterProvider");
    expect(field({ adapter: "" })).toBe("telemetryOptions.adapter");
    expect(field({ digestKey: "" })).toBe("telemetryOptions.digestKey");
    expect(() => withRunStoreTelemetry(new InMemoryRunStore(), { adapter: 1 } as never)).toThrow(
      /telemetryOptions.adapter/,
    );
  });

  it("works with no options at all, on the global (no-op) providers", async () => {
    const service = withTelemetry(new MemoryArtifactService());
    const meta = await service.put({ kind: "app", app: "a" }, "n", new Uint8Array(3));
    expect(meta.version).toBe(1);
    await service.close();
  });
});
