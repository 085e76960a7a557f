import type { ArtifactService, PutOptions } from "@artifact-kit/core";
import { BENCH_SCOPE } from "./kit-store.js";
import { comparePaired, type PairedOptions, type PairedResult, type PairedSide } from "./paired.js";

// Paired comparisons of two ways to put the same bytes (see paired.ts), shared by the
// programs that time a wrapper or a protocol against the plain adapter's put.

/** One put of `bytes` per call, as a new version of one name; closed when its side ends. */
export interface Putter {
  put(bytes: Uint8Array): Promise<unknown>;
  close(): Promise<void>;
}

export type OpenPutter = () => Promise<Putter>;

/** Versions of one name before its store is rebuilt (untimed), within the per-name ceilings. */
const MAX_VERSIONS = 2_000;

/** A service's put of one name, with the options `options()` gives each put (none by default). */
export function servicePutter(
  open: () => Promise<ArtifactService>,
  options: () => PutOptions | undefined = () => undefined,
): OpenPutter {
  return async () => {
    const service = await open();
    return {
      put: (bytes) => service.put(BENCH_SCOPE, "report.bin", bytes, options()),
      close: () => service.close(),
    };
  };
}

/** Puts of `bytes` in batches; the store is rebuilt before it fills. */
function putSide(
  open: OpenPutter,
  bytes: Uint8Array,
  batch: number,
): PairedSide & { close(): Promise<void> } {
  let putter: Putter | undefined;
  let versions = 0;
  return {
    before: async () => {
      if (putter !== undefined && versions + batch <= MAX_VERSIONS) return;
      await putter?.close();
      putter = await open();
      versions = 0;
    },
    run: () => {
      versions += 1;
      return (putter as Putter).put(bytes);
    },
    close: async () => {
      await putter?.close();
    },
  };
}

export const PAIRED_TABLE_HEADER = [
  "| case | plain | subject | median per-pair ratio | p10–p90 of pairs | ratio of fastest batches | pairs |",
  "| --- | --- | --- | --- | --- | --- | --- |",
];

function formatRow(label: string, result: PairedResult): string {
  const [low, high] = result.ratioInterval;
  return [
    `| ${label}`,
    `${result.baselineMicros.toFixed(2)} µs`,
    `${result.subjectMicros.toFixed(2)} µs`,
    `${result.medianRatio.toFixed(3)}x (95% CI ${low.toFixed(3)}–${high.toFixed(3)})`,
    `${result.ratioP10.toFixed(2)}–${result.ratioP90.toFixed(2)}`,
    `${(result.subjectMinMicros / result.baselineMinMicros).toFixed(3)}x`,
    `${result.pairs} |`,
  ].join(" | ");
}

/** One table row: `subject`'s puts against `plain`'s, paired. */
export async function comparePuts(
  label: string,
  plain: OpenPutter,
  subject: OpenPutter,
  bytes: Uint8Array,
  options: PairedOptions,
): Promise<string> {
  const a = putSide(plain, bytes, options.batch);
  const b = putSide(subject, bytes, options.batch);
  try {
    return formatRow(label, await comparePaired(a, b, options));
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}
