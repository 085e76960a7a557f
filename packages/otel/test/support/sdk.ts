import {
  AggregationTemporality,
  type DataPoint,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/**
 * The real OpenTelemetry SDK with its in-memory exporters: spans are exported as each ends,
 * metrics when `metrics()` flushes the reader (its own timer is set far beyond any test).
 * Metrics are delta: each collection holds what happened since the previous one, and only
 * the gauges observed in it (cumulative would repeat a gauge series after it stopped).
 */
export class TelemetryHarness {
  readonly spanExporter = new InMemorySpanExporter();
  readonly metricExporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
  readonly tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(this.spanExporter)],
  });
  readonly #reader = new PeriodicExportingMetricReader({
    exporter: this.metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  readonly meterProvider = new MeterProvider({ readers: [this.#reader] });

  /** The options that point a wrapper at this harness. */
  get providers() {
    return { tracerProvider: this.tracerProvider, meterProvider: this.meterProvider };
  }

  spans(): ReadableSpan[] {
    return this.spanExporter.getFinishedSpans();
  }

  /** The one finished span named `name`; fails when there are none or several. */
  span(name: string): ReadableSpan {
    const found = this.spans().filter((span) => span.name === name);
    if (found.length !== 1) {
      throw new Error(`expected one span "${name}", got ${found.length}: ${this.spanNames()}`);
    }
    return found[0] as ReadableSpan;
  }

  spanNames(): string[] {
    return this.spans().map((span) => span.name);
  }

  /** Collects now: every metric with its points since the previous collection. */
  async metrics(): Promise<MetricData[]> {
    this.metricExporter.reset();
    await this.#reader.forceFlush();
    return this.metricExporter
      .getMetrics()
      .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
  }

  /** The data points of metric `name` whose attributes include `attributes`. */
  async points(
    name: string,
    attributes: Record<string, unknown> = {},
  ): Promise<DataPoint<unknown>[]> {
    const metric = (await this.metrics()).find((data) => data.descriptor.name === name);
    const points = (metric?.dataPoints ?? []) as DataPoint<unknown>[];
    return points.filter((point) =>
      Object.entries(attributes).every(([key, value]) => point.attributes[key] === value),
    );
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.tracerProvider.shutdown(), this.meterProvider.shutdown()]);
  }
}
