import { inspect } from "node:util";
import { MemoryArtifactService } from "@artifact-kit/memory";
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, expect, it, vi } from "vitest";
import { withTelemetry } from "../src/index.js";

afterEach(() => {
  vi.restoreAllMocks();
});

// The README's example, as written there; the console exporters' output is captured.
it("runs the README example, printing spans and metrics without the artifact's name", async () => {
  const printed: string[] = [];
  const capture = (...args: unknown[]) => {
    printed.push(args.map((arg) => inspect(arg, { depth: 10 })).join(" "));
  };
  vi.spyOn(console, "dir").mockImplementation(capture);
  vi.spyOn(console, "log").mockImplementation(capture);

  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
  });
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: new ConsoleMetricExporter() })],
  });

  const service = withTelemetry(new MemoryArtifactService(), { tracerProvider, meterProvider });
  const scope = { kind: "user", app: "notebook", user: "ada" } as const;

  const { version } = await service.put(scope, "notes.txt", new TextEncoder().encode("hello"));
  await service.get(scope, "notes.txt", { version }); // span "artifact.get", no name in it
  await service.close();
  await tracerProvider.shutdown();
  await meterProvider.shutdown(); // exports the metrics once more

  const output = printed.join("\n");
  for (const span of ["artifact.put", "artifact.get", "artifact.close"]) {
    expect(output).toContain(`name: '${span}'`);
  }
  expect(output).toContain("artifact.operation.duration");
  expect(output).not.toMatch(/notes\.txt|notebook|\bada\b/);
});
