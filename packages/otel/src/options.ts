import { invalidArgument, validateOptionKeys } from "@artifact-kit/core";
import type { MeterProvider, TracerProvider } from "@opentelemetry/api";
import { IDENTIFIER_RECORDINGS, type IdentifierRecording } from "./identifiers.js";

export interface TelemetryOptions {
  /** Where spans go; the global tracer provider (a no-op until one is registered) when absent. */
  tracerProvider?: TracerProvider;
  /** Where metrics go; the global meter provider (a no-op until one is registered) when absent. */
  meterProvider?: MeterProvider;
  /** The `artifact.adapter` attribute; the wrapped object's class name when absent. */
  adapter?: string;
  /** Artifact names and run-store paths and step ids; `"none"` by default. */
  recordNames?: IdentifierRecording;
  /** Scope ids (app, user, session) and run ids; `"none"` by default. */
  recordScopeIds?: IdentifierRecording;
  /**
   * The HMAC key of `"digest"` recording. Give the same key to every process whose digests
   * should match; without it each process draws its own random key.
   */
  digestKey?: string | Uint8Array;
}

const TELEMETRY_OPTION_KEYS = [
  "tracerProvider",
  "meterProvider",
  "adapter",
  "recordNames",
  "recordScopeIds",
  "digestKey",
] as const;

export interface ResolvedTelemetryOptions {
  tracerProvider: TracerProvider | undefined;
  meterProvider: MeterProvider | undefined;
  adapter: string | undefined;
  recordNames: IdentifierRecording;
  recordScopeIds: IdentifierRecording;
  digestKey: Uint8Array | undefined;
}

/** Checks every option; a bad one is `invalid_argument` with the option's path as its field. */
export function resolveTelemetryOptions(options: unknown): ResolvedTelemetryOptions {
  const given = validateOptionKeys(options, TELEMETRY_OPTION_KEYS, "telemetryOptions");
  return {
    tracerProvider: provider<TracerProvider>(given.tracerProvider, "tracerProvider", "getTracer"),
    meterProvider: provider<MeterProvider>(given.meterProvider, "meterProvider", "getMeter"),
    adapter: adapterName(given.adapter),
    recordNames: recording(given.recordNames, "recordNames"),
    recordScopeIds: recording(given.recordScopeIds, "recordScopeIds"),
    digestKey: digestKey(given.digestKey),
  };
}

function provider<P>(value: unknown, option: string, method: string): P | undefined {
  if (value === undefined) return undefined;
  const candidate = value as Record<string, unknown> | null;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    typeof candidate[method] !== "function"
  ) {
    throw invalidArgument(`telemetryOptions.${option}`, `must be an object with ${method}()`);
  }
  return value as P;
}

function adapterName(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0) {
    throw invalidArgument("telemetryOptions.adapter", "must be a non-empty string");
  }
  return value;
}

function recording(value: unknown, option: string): IdentifierRecording {
  if (value === undefined) return "none";
  if (!IDENTIFIER_RECORDINGS.includes(value as IdentifierRecording)) {
    throw invalidArgument(
      `telemetryOptions.${option}`,
      `must be one of ${IDENTIFIER_RECORDINGS.map((mode) => `"${mode}"`).join(", ")}`,
    );
  }
  return value as IdentifierRecording;
}

function digestKey(value: unknown): Uint8Array | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && value.length > 0) return new TextEncoder().encode(value);
  if (value instanceof Uint8Array && value.byteLength > 0) return new Uint8Array(value);
  throw invalidArgument("telemetryOptions.digestKey", "must be a non-empty string or Uint8Array");
}
