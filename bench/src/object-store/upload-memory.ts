import { randomUUID } from "node:crypto";
import { hasTransfer } from "@artifact-kit/core";
import type { BenchBucket } from "./bucket.js";

const MiB = 1024 * 1024;
/** Issues 6, 21 and 36: what one streamed upload may add to the process, however large. */
export const UPLOAD_MEMORY_BOUND = 64 * MiB;
const SAMPLE_MS = 20;

/** The peak growth of each of the process's memory figures over a settled baseline. */
export interface MemoryGrowth {
  readonly rss: number;
  readonly heapUsed: number;
  /** Memory of C++ objects bound to JS objects, Buffers' and ArrayBuffers' included. */
  readonly external: number;
  readonly arrayBuffers: number;
  /** heapUsed + external, summed at each sample: all the memory the JS side holds. */
  readonly heapAndExternal: number;
}

type Sample = Omit<MemoryGrowth, "heapAndExternal">;

const gc = () => (globalThis as { gc?: () => void }).gc?.();

/**
 * Untimed: one streamed upload of `bytes` through the adapter over `bucket` (openUpload, 1 MiB
 * writes from one buffer the caller reuses, as the upload contract lets it), while the
 * process's memory is sampled every 20 ms and after every write; the peak growth of each
 * figure over a baseline taken after a full collection. The caller's buffer is reused so
 * that every byte measured is the adapter's (and its SDK's), garbage included: what it
 * allocates per chunk piles up until V8 collects it, and counts against the bound as RSS.
 */
export async function streamedUploadMemory(
  bucket: BenchBucket,
  bytes: number,
): Promise<MemoryGrowth> {
  if (!(globalThis as { gc?: unknown }).gc) throw new Error("run the bench with node --expose-gc");
  await bucket.empty();
  const service = bucket.service({ maxArtifactBytes: bytes + MiB });
  if (!hasTransfer(service)) throw new Error("the adapter offers no streamed upload");
  const chunk = new Uint8Array(MiB);
  for (let i = 0; i < chunk.length; i += 1) chunk[i] = (i * 131 + (i >>> 8)) & 0xff;
  gc();
  const base = sample();
  const peak = { ...base, heapAndExternal: base.heapUsed + base.external };
  const observe = () => {
    const now = sample();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
    peak.external = Math.max(peak.external, now.external);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
    peak.heapAndExternal = Math.max(peak.heapAndExternal, now.heapUsed + now.external);
  };
  const timer = setInterval(observe, SAMPLE_MS);
  try {
    const upload = await service.openUpload({ kind: "app", app: "bench" }, `big-${randomUUID()}`);
    for (let sent = 0; sent < bytes; sent += MiB) {
      chunk[0] = (sent / MiB) & 0xff; // every MiB differs
      await upload.write(chunk.subarray(0, Math.min(MiB, bytes - sent)));
      observe();
    }
    const meta = await upload.finish();
    if (meta.size !== bytes) throw new Error(`uploaded ${meta.size} bytes, not ${bytes}`);
    observe();
  } finally {
    clearInterval(timer);
    await service.close();
    await bucket.empty();
    await bucket.close?.();
  }
  return {
    rss: peak.rss - base.rss,
    heapUsed: peak.heapUsed - base.heapUsed,
    external: peak.external - base.external,
    arrayBuffers: peak.arrayBuffers - base.arrayBuffers,
    heapAndExternal: peak.heapAndExternal - (base.heapUsed + base.external),
  };
}

function sample(): Sample {
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, external, arrayBuffers };
}

/** The figures as one line, with PASS when RSS and heap + external both stay under the bound. */
export function describeGrowth(growth: MemoryGrowth, bytes: number): string {
  const mib = (value: number) => `${(value / MiB).toFixed(1)} MiB`;
  const pass = growth.rss < UPLOAD_MEMORY_BOUND && growth.heapAndExternal < UPLOAD_MEMORY_BOUND;
  return (
    `memory growth of one ${bytes / MiB} MiB streamed upload (ours, peak over a collected baseline): ` +
    `RSS ${mib(growth.rss)}, heap ${mib(growth.heapUsed)}, external ${mib(growth.external)} ` +
    `(arrayBuffers ${mib(growth.arrayBuffers)}), heap + external ${mib(growth.heapAndExternal)}, ` +
    `bound < ${UPLOAD_MEMORY_BOUND / MiB} MiB for RSS and for heap + external: ${pass ? "PASS" : "MISS"}`
  );
}
