import {
  type Attributes,
  type Counter,
  context,
  type Histogram,
  type Meter,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import {
  ATTR_ADAPTER,
  ATTR_ERROR_TYPE,
  ATTR_OPERATION,
  ATTR_OUTCOME,
  type Outcome,
} from "./attributes.js";
import { errorType } from "./errors.js";
import { IdentifierPolicy } from "./identifiers.js";
import { INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION } from "./instrumentation.js";
import type { ResolvedTelemetryOptions } from "./options.js";

export const METRIC_OPERATION_DURATION = "artifact.operation.duration";
export const METRIC_BYTES_WRITTEN = "artifact.bytes.written";
export const METRIC_BYTES_READ = "artifact.bytes.read";
export const METRIC_ERRORS = "artifact.errors";

/**
 * Bucket bounds in seconds: the conventions' HTTP and database buckets, extended downwards
 * because an in-memory put takes microseconds.
 */
export const DURATION_BUCKETS_SECONDS = [
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
  0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/** The tracer, meter, instruments and identifier policies one wrapper records with. */
export class Telemetry {
  readonly adapter: string;
  readonly tracer: Tracer;
  readonly meter: Meter;
  readonly names: IdentifierPolicy;
  readonly scopeIds: IdentifierPolicy;
  readonly #duration: Histogram;
  readonly #written: Counter;
  readonly #read: Counter;
  readonly #errors: Counter;
  /** Metric attribute sets by operation, outcome and error type, built once each. */
  readonly #metricAttributes = new Map<string, Attributes>();

  constructor(options: ResolvedTelemetryOptions, adapter: string) {
    this.adapter = adapter;
    const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
    const meterProvider = options.meterProvider ?? metrics.getMeterProvider();
    this.tracer = tracerProvider.getTracer(INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION);
    this.meter = meterProvider.getMeter(INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION);
    this.names = new IdentifierPolicy(options.recordNames, options.digestKey);
    this.scopeIds = new IdentifierPolicy(options.recordScopeIds, options.digestKey);
    this.#duration = this.meter.createHistogram(METRIC_OPERATION_DURATION, {
      description: "Duration of artifact operations, from call to settlement.",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
    });
    this.#written = this.meter.createCounter(METRIC_BYTES_WRITTEN, {
      description: "Bytes of the artifacts that were published (put, finished uploads).",
      unit: "By",
    });
    this.#read = this.meter.createCounter(METRIC_BYTES_READ, {
      description: "Bytes of artifact data handed to callers (get, download reads).",
      unit: "By",
    });
    this.#errors = this.meter.createCounter(METRIC_ERRORS, {
      description: "Failed artifact operations, by error.type (the ArtifactError code).",
      unit: "{error}",
    });
  }

  /** Starts the span of one operation; `attributes` are those known before the call. */
  start(operation: string, attributes: Attributes): Operation {
    const span = this.tracer.startSpan(`artifact.${operation}`, {
      kind: SpanKind.INTERNAL,
      attributes: { ...this.metricAttributes(operation), ...attributes },
    });
    return new Operation(this, operation, span);
  }

  /** Runs `call` under a new operation span and records how it settled. */
  async traced<T>(
    operation: string,
    attributes: Attributes,
    call: () => Promise<T>,
    describe?: (result: T, operation: Operation) => void,
  ): Promise<T> {
    const op = this.start(operation, attributes);
    let result: T;
    try {
      result = await op.within(call);
    } catch (error) {
      op.fail(error);
      throw error;
    }
    describe?.(result, op);
    op.end("ok");
    return result;
  }

  countWritten(operation: string, bytes: number): void {
    if (bytes > 0) this.#written.add(bytes, this.metricAttributes(operation));
  }

  countRead(operation: string, bytes: number): void {
    if (bytes > 0) this.#read.add(bytes, this.metricAttributes(operation));
  }

  /** @internal Records the duration (and the error) of a settled operation. */
  settle(operation: string, seconds: number, outcome: Outcome, type: string | undefined): void {
    const attributes = this.metricAttributes(operation, outcome, type);
    this.#duration.record(seconds, attributes);
    if (type !== undefined) this.#errors.add(1, attributes);
  }

  /** Low-cardinality attributes shared by the span and every metric of an operation. */
  metricAttributes(operation: string, outcome?: Outcome, type?: string): Attributes {
    const key = `${operation}\0${outcome ?? ""}\0${type ?? ""}`;
    let attributes = this.#metricAttributes.get(key);
    if (attributes === undefined) {
      attributes = Object.freeze({
        [ATTR_OPERATION]: operation,
        [ATTR_ADAPTER]: this.adapter,
        ...(outcome !== undefined && { [ATTR_OUTCOME]: outcome }),
        ...(type !== undefined && { [ATTR_ERROR_TYPE]: type }),
      });
      this.#metricAttributes.set(key, attributes);
    }
    return attributes;
  }
}

/** One operation in flight: its span and start time, ended exactly once. */
export class Operation {
  readonly #telemetry: Telemetry;
  readonly #name: string;
  readonly #span: Span;
  readonly #startedAt = performance.now();
  #ended = false;

  constructor(telemetry: Telemetry, name: string, span: Span) {
    this.#telemetry = telemetry;
    this.#name = name;
    this.#span = span;
  }

  /** False when the span is sampled out: attributes need not be computed. */
  get recording(): boolean {
    return this.#span.isRecording();
  }

  /** Adds attributes learnt during the operation; none once it has ended. */
  set(attributes: Attributes): void {
    if (!this.#ended) this.#span.setAttributes(attributes);
  }

  /** Runs `call` with this span active, so that spans the adapter makes nest under it. */
  within<T>(call: () => T): T {
    return context.with(trace.setSpan(context.active(), this.#span), call);
  }

  fail(error: unknown): void {
    this.end("error", errorType(error));
  }

  /**
   * Ends the span and records the duration. The status message is the error type only: an
   * error's message may name the artifact, and names are recorded only when asked for.
   */
  end(outcome: Outcome, type?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    const seconds = (performance.now() - this.#startedAt) / 1000;
    this.#span.setAttribute(ATTR_OUTCOME, outcome);
    if (type !== undefined) {
      this.#span.setAttribute(ATTR_ERROR_TYPE, type);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    }
    this.#span.end();
    this.#telemetry.settle(this.#name, seconds, outcome, type);
  }
}
