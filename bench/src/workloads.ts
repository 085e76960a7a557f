import { randomBytes } from "node:crypto";
import type { Workload } from "./measure.js";
import type { StoreUnderTest } from "./store.js";

export const KiB = 1024;
export const MiB = 1024 * KiB;

/** Incompressible bytes, so no layer can cheat on content. */
export function payload(size: number): Uint8Array {
  return new Uint8Array(randomBytes(size));
}

export interface PutBounds {
  /** Reset the store once this many bytes have been put since the last reset. */
  readonly maxBytes: number;
  /** ... or this many versions (kept below the adapters' default per-scope count quotas). */
  readonly maxVersions: number;
}

/** Put `bytes` as a new version of one name, over and over; the store is reset (untimed) when bounds are reached. */
export function putWorkload(store: StoreUnderTest, bytes: Uint8Array, bounds: PutBounds): Workload {
  let versions = 0;
  const reset = async () => {
    versions = 0;
    await store.reset();
  };
  return {
    prepare: reset,
    run: async () => {
      versions += 1;
      return store.put("report.bin", bytes);
    },
    afterSample: async () => {
      if (versions >= bounds.maxVersions || versions * bytes.byteLength >= bounds.maxBytes) {
        await reset();
      }
    },
  };
}

/** Read the latest of `history` versions of one name. */
export function getLatestWorkload(
  store: StoreUnderTest,
  bytes: Uint8Array,
  history: number,
): Workload {
  return {
    prepare: () => fill(store, "report.bin", bytes, history),
    run: () => store.getLatest("report.bin"),
  };
}

/** List the versions of a name that has `history` versions, in one call of the store's API. */
export function listVersionsWorkload(store: StoreUnderTest, history: number): Workload {
  return {
    // One read before timing: on s3 the first read of a name writes its record chunks (that
    // page's requests are reported apart), so the row times the pages every later read pays.
    prepare: async () => {
      await fill(store, "log.txt", payload(64), history);
      await store.listVersions("log.txt");
    },
    run: () => store.listVersions("log.txt"),
  };
}

async function fill(store: StoreUnderTest, name: string, bytes: Uint8Array, versions: number) {
  await store.reset();
  for (let i = 0; i < versions; i += 1) await store.put(name, bytes);
}
