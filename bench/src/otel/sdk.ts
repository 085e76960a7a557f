import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { ExportResultCode } from "@opentelemetry/core";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";

/** Takes every batch and drops it: the SDK does all its work, nothing leaves the process. */
const discard = (_items: unknown, done: (result: { code: ExportResultCode }) => void) =>
  done({ code: ExportResultCode.SUCCESS });

const noopSpanExporter: SpanExporter = {
  export: discard,
  shutdown: async () => undefined,
};

const noopMetricExporter: PushMetricExporter = {
  export: discard,
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

/**
 * The real SDK as an application sets it up: the async-hooks context manager (so each span is
 * made active around the adapter's call), a batch span processor and a periodic metric reader,
 * both exporting to nowhere.
 */
export function realSdk() {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(noopSpanExporter)],
  });
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: noopMetricExporter,
        exportIntervalMillis: 10_000,
      }),
    ],
  });
  return {
    providers: { tracerProvider, meterProvider },
    shutdown: async () => {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
      context.disable();
    },
  };
}
