import { parseArgs } from "node:util";
import type { ArtifactService } from "@artifact-kit/core";
import { FsArtifactService } from "@artifact-kit/fs";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { withTelemetry } from "@artifact-kit/otel";
import { context, SpanKind, trace } from "@opentelemetry/api";
import { positiveInteger } from "../args.js";
import { describeMachine } from "../machine.js";
import { type PairedOptions, timeAlone } from "../paired.js";
import { comparePuts, PAIRED_TABLE_HEADER, servicePutter } from "../paired-puts.js";
import { ScratchSpace } from "../scratch.js";
import { KiB, payload } from "../workloads.js";
import { realSdk } from "./sdk.js";

// Issue 22's overhead targets, measured as paired ratios (see paired.ts): withTelemetry over
// memory put 1 KiB (at most 1.1x) and fs put 4 KiB (at most 1.03x), with the real SDK
// exporting nowhere. Beside them, the floor: what the SDK itself costs for one span and one
// histogram record, and a hand-written minimal instrumentation of the same put.

const { values } = parseArgs({
  options: {
    "memory-pairs": { type: "string", default: "400" },
    "fs-pairs": { type: "string", default: "400" },
    only: { type: "string" },
  },
});
const memoryPairs = positiveInteger(values["memory-pairs"], "--memory-pairs");
const fsPairs = positiveInteger(values["fs-pairs"], "--fs-pairs");

type Open = () => Promise<ArtifactService>;

const sdk = realSdk();
const { tracerProvider, meterProvider } = sdk.providers;
const scratch = new ScratchSpace();
const memory: Open = async () => new MemoryArtifactService();
const traced =
  (open: Open): Open =>
  async () =>
    withTelemetry(await open(), sdk.providers);

/** The least instrumentation that still records a span (active around the call) and a histogram. */
function handWritten(open: Open): Open {
  const tracer = tracerProvider.getTracer("floor");
  const histogram = meterProvider.getMeter("floor").createHistogram("floor.duration");
  const spanAttributes = { "artifact.operation": "put", "artifact.adapter": "floor" };
  const metricAttributes = { ...spanAttributes, "artifact.outcome": "ok" };
  return async () => {
    const inner = await open();
    return new Proxy(inner, {
      get(target, key) {
        if (key !== "put") {
          const value = Reflect.get(target, key);
          // Bound, so that the adapter's private fields are reached on the adapter itself.
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (...args: Parameters<ArtifactService["put"]>) => {
          const startedAt = performance.now();
          const span = tracer.startSpan("artifact.put", {
            kind: SpanKind.INTERNAL,
            attributes: spanAttributes,
          });
          const meta = await context.with(trace.setSpan(context.active(), span), () =>
            target.put(...args),
          );
          span.end();
          histogram.record((performance.now() - startedAt) / 1000, metricAttributes);
          return meta;
        };
      },
    });
  };
}

/** One table row: the put of `subject`'s service against `plain`'s, paired. */
function compare(
  label: string,
  plain: Open,
  subject: Open,
  bytes: Uint8Array,
  options: PairedOptions,
): Promise<string> {
  return comparePuts(label, servicePutter(plain), servicePutter(subject), bytes, options);
}

async function floorRows(): Promise<string[]> {
  const tracer = tracerProvider.getTracer("floor");
  const histogram = meterProvider.getMeter("floor").createHistogram("floor.alone");
  const attributes = { "artifact.operation": "put", "artifact.adapter": "floor" };
  const recorded = { ...attributes, "artifact.outcome": "ok" };
  const options = { rounds: 200, batch: 500 };
  const span = await timeAlone(
    () => tracer.startSpan("artifact.put", { kind: SpanKind.INTERNAL, attributes }).end(),
    options,
  );
  const spanActive = await timeAlone(() => {
    const started = tracer.startSpan("artifact.put", { kind: SpanKind.INTERNAL, attributes });
    return context
      .with(trace.setSpan(context.active(), started), async () => undefined)
      .then(() => started.end());
  }, options);
  const record = await timeAlone(() => histogram.record(0.00001, recorded), options);
  const emptyAwait = await timeAlone(async () => undefined, options);
  return [
    `| SDK startSpan + end, alone | ${span.toFixed(2)} µs |`,
    `| SDK startSpan + context.with(async) + end, alone | ${spanActive.toFixed(2)} µs |`,
    `| SDK histogram record (cached attributes), alone | ${record.toFixed(2)} µs |`,
    `| an awaited empty async call (the loop's own cost) | ${emptyAwait.toFixed(2)} µs |`,
  ];
}

try {
  console.log(describeMachine());
  const rows: string[] = [];
  const only = values.only;
  if (only === undefined || only === "memory") {
    const options = { pairs: memoryPairs, batch: 200, warmupPairs: 20 };
    const bytes = payload(KiB);
    rows.push(
      await compare("memory put 1 KiB: withTelemetry", memory, traced(memory), bytes, options),
      await compare(
        "memory put 1 KiB: hand-written span + histogram (the floor)",
        memory,
        handWritten(memory),
        bytes,
        options,
      ),
      // The control: the plain adapter against itself. Its distance from 1.000 is what the
      // method resolves on this machine at this load.
      await compare(
        "memory put 1 KiB: plain vs plain (A/A control)",
        memory,
        memory,
        bytes,
        options,
      ),
    );
  }
  if (only === undefined || only === "fs") {
    const fsIn =
      (owner: string): Open =>
      () =>
        FsArtifactService.open({ root: scratch.fresh(owner) });
    const options = { pairs: fsPairs, batch: 4, warmupPairs: 10 };
    const bytes = payload(4 * KiB);
    rows.push(
      await compare(
        "fs put 4 KiB: withTelemetry",
        fsIn("plain"),
        traced(fsIn("traced")),
        bytes,
        options,
      ),
      await compare(
        "fs put 4 KiB: hand-written span + histogram (the floor)",
        fsIn("plain"),
        handWritten(fsIn("floor")),
        bytes,
        options,
      ),
      await compare(
        "fs put 4 KiB: plain vs plain (A/A control)",
        fsIn("plain"),
        fsIn("plain-again"),
        bytes,
        options,
      ),
    );
  }
  console.log(`\n${[...PAIRED_TABLE_HEADER, ...rows].join("\n")}`);
  if (only === undefined || only === "floor") {
    console.log(`\n| floor | per call |\n| --- | --- |\n${(await floorRows()).join("\n")}`);
  }
} finally {
  await sdk.shutdown();
  scratch.close();
}
