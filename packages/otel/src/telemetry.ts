import {
  type Attributes,
  type Counter,
  context,
  type Histogram,
  type Meter,
  metrics,
  type Span,
  SpanKind,
  type SpanOptions,
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
import { type ByteDirection, type ByteTotal, byteTotalsOf } from "./byte-totals.js";
import { errorType } from "./errors.js";
import { IdentifierPolicy } from "./identifiers.js";
import { INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION } from "./instrumentation.js";
import type { ResolvedTelemetryOptions } from "./options.js";

export const METRIC_OPERATION_DURATION = "artifact.operation.duration";
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
  readonly #errors: Counter;
  readonly #operations = new Map<string, OperationAttributes>();

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
    this.#errors = this.meter.createCounter(METRIC_ERRORS, {
      description: "Failed artifact operations, by error.type (the ArtifactError code).",
      unit: "{error}",
    });
  }

  /**
   * Starts the span of one operation. The request's attributes are computed only when the
   * span records (not for a no-op provider or a span sampled out); the sampler sees the
   * operation and adapter.
   */
  start(operation: string, request?: () => Attributes): Operation {
    const attributes = this.#attributesOf(operation);
    const span = this.tracer.startSpan(attributes.spanName, attributes.spanOptions);
    if (request !== undefined && span.isRecording()) span.setAttributes(request());
    return new Operation(this, attributes, span);
  }

  /** Runs `call` under a new operation span and records how it settled. */
  async traced<T>(
    operation: string,
    request: (() => Attributes) | undefined,
    call: () => Promise<T>,
    describe?: (result: T, operation: Operation) => void,
  ): Promise<T> {
    const op = this.start(operation, request);
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
    if (bytes > 0) this.#attributesOf(operation).bytes(this.meter, "written").value += bytes;
  }

  countRead(operation: string, bytes: number): void {
    if (bytes > 0) this.#attributesOf(operation).bytes(this.meter, "read").value += bytes;
  }

  /** @internal Records the duration (and the error) of a settled operation. */
  settle(attributes: Attributes, seconds: number, failed: boolean): void {
    this.#duration.record(seconds, attributes);
    if (failed) this.#errors.add(1, attributes);
  }

  #attributesOf(operation: string): OperationAttributes {
    let attributes = this.#operations.get(operation);
    if (attributes === undefined) {
      attributes = new OperationAttributes(operation, this.adapter);
      this.#operations.set(operation, attributes);
    }
    return attributes;
  }
}

/**
 * The low-cardinality attribute sets of one operation, shared by its spans and metrics and
 * built once each: the SDK hashes a metric's attributes on every record, the sets need not
 * be rebuilt too.
 */
class OperationAttributes {
  readonly spanName: string;
  readonly base: Attributes;
  readonly spanOptions: SpanOptions;
  readonly #key: string;
  readonly #outcomes = new Map<string, Attributes>();
  readonly #bytes: Partial<Record<ByteDirection, ByteTotal>> = {};

  constructor(operation: string, adapter: string) {
    this.spanName = `artifact.${operation}`;
    this.base = Object.freeze({ [ATTR_OPERATION]: operation, [ATTR_ADAPTER]: adapter });
    this.spanOptions = Object.freeze({ kind: SpanKind.INTERNAL, attributes: this.base });
    this.#key = `${operation}\0${adapter}`;
  }

  /** The running total of bytes this operation moved in `direction`, looked up once. */
  bytes(meter: Meter, direction: ByteDirection): ByteTotal {
    let total = this.#bytes[direction];
    if (total === undefined) {
      total = byteTotalsOf(meter).total(direction, this.#key, this.base);
      this.#bytes[direction] = total;
    }
    return total;
  }

  /** The metric attributes of an outcome, with the error type when it failed. */
  settled(outcome: Outcome, type: string | undefined): Attributes {
    const key = type === undefined ? outcome : `${outcome}\0${type}`;
    let attributes = this.#outcomes.get(key);
    if (attributes === undefined) {
      attributes = Object.freeze({
        ...this.base,
        [ATTR_OUTCOME]: outcome,
        ...(type !== undefined && { [ATTR_ERROR_TYPE]: type }),
      });
      this.#outcomes.set(key, attributes);
    }
    return attributes;
  }
}

/** One operation in flight: its span and start time, ended exactly once. */
export class Operation {
  readonly #telemetry: Telemetry;
  readonly #attributes: OperationAttributes;
  readonly #span: Span;
  readonly #startedAt = performance.now();
  #ended = false;

  constructor(telemetry: Telemetry, attributes: OperationAttributes, span: Span) {
    this.#telemetry = telemetry;
    this.#attributes = attributes;
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
    this.#telemetry.settle(this.#attributes.settled(outcome, type), seconds, type !== undefined);
  }
}
