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

// The README's examples, as written there; the console exporters' output is captured.
it("runs the README's tracing example, printing spans without the artifact's name", async () => {
  const printed = captureConsole();

  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
  });
  const service = withTelemetry(new MemoryArtifactService(), { tracerProvider });
  const scope = { kind: "user", app: "notebook", user: "ada" } as const;

  const { version } = await service.put(scope, "notes.txt", new TextEncoder().encode("hello"));
  await service.get(scope, "notes.txt", { version }); // prints span "artifact.get", no name in it
  await service.close();
  await tracerProvider.shutdown();

  const output = printed.join("\n");
  for (const span of ["artifact.put", "artifact.get", "artifact.close"]) {
    expect(output).toContain(`name: '${span}'`);
  }
  expect(output).not.toMatch(/notes\.txt|notebook|\bada\b/);
});

it("runs the README's metrics example", async () => {
  const printed = captureConsole();

  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: new ConsoleMetricExporter() })],
  });
  const service = withTelemetry(new MemoryArtifactService(), { meterProvider });
  await service.put({ kind: "app", app: "notebook" }, "a.txt", new Uint8Array(5));
  await service.close();
  await meterProvider.shutdown(); // exports artifact.operation.duration, artifact.bytes.written, ...

  const output = printed.join("\n");
  expect(output).toContain("artifact.operation.duration");
  expect(output).toContain("artifact.bytes.written");
  expect(output).not.toMatch(/a\.txt|notebook/);
});

/** Everything console.dir and console.log print from now until the test ends. */
function captureConsole(): string[] {
  const printed: string[] = [];
  const capture = (...args: unknown[]) => {
    printed.push(args.map((arg) => inspect(arg, { depth: 10 })).join(" "));
  };
  vi.spyOn(console, "dir").mockImplementation(capture);
  vi.spyOn(console, "log").mockImplementation(capture);
  return printed;
}
