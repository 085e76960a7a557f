import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { TelemetryHarness } from "./sdk.js";

/** Every attribute value of every finished span and exported metric point, as text. */
export async function everyRecordedValue(harness: TelemetryHarness): Promise<string[]> {
  const spanValues = harness
    .spans()
    .flatMap((span: ReadableSpan) => [
      span.name,
      span.status.message ?? "",
      ...Object.values(span.attributes).map(String),
      ...span.events.flatMap((event) => Object.values(event.attributes ?? {}).map(String)),
    ]);
  const metricValues = (await harness.metrics()).flatMap((metric) =>
    metric.dataPoints.flatMap((point) => Object.values(point.attributes).map(String)),
  );
  return [...spanValues, ...metricValues];
}

/** The error an action rejects with; fails the test when it resolves. */
export async function rejectionOf(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}
