import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { withTelemetry } from "@artifact-kit/otel";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const service = withTelemetry(new MemoryArtifactService(), { tracerProvider });
const scope: Scope = { kind: "user", app: "smoke", user: "u" };
await service.put(scope, "hello.txt", new TextEncoder().encode("hello"));
await service.get(scope, "hello.txt");
await service.close();
const names = exporter.getFinishedSpans().map((span) => span.name);
if (names.join() !== "artifact.put,artifact.get,artifact.close") {
  throw new Error(`unexpected spans: ${names.join()}`);
}
if (JSON.stringify(exporter.getFinishedSpans().map((span) => span.attributes)).includes("hello")) {
  throw new Error("a span recorded the artifact's name");
}
await tracerProvider.shutdown();
console.log(`otel: ${names.join(", ")}, no names recorded`);
