import type { Workload } from "../measure.js";
import type { StoreUnderTest } from "../store.js";
import type { Row } from "../suite.js";
import {
  getLatestWorkload,
  KiB,
  listVersionsWorkload,
  MiB,
  type PutBounds,
  payload,
  putWorkload,
} from "../workloads.js";
import type { RequestTally } from "./request-tally.js";

/**
 * The emulators keep every object in memory (and adk's gcs peer lists every version of a
 * name on each put), so stores are emptied (untimed) often.
 */
const PUT_BOUNDS: PutBounds = { maxBytes: 64 * MiB, maxVersions: 100 };
const GET_HISTORY = 2;
const LIST_HISTORY = 100;

/**
 * The rows the object-store suites (gcs, s3, azure) time on every store, one operation a batch, each
 * workload counted by `tally`: puts and latest reads of 4 KiB and 1 MiB, and a listing of 100
 * versions.
 */
export function objectStoreRows(
  stores: Record<string, StoreUnderTest>,
  tally: RequestTally,
): Row[] {
  const row = (label: string, build: (store: StoreUnderTest) => Workload): Row => ({
    label,
    batch: 1,
    workloads: Object.fromEntries(
      Object.entries(stores).map(([id, store]) => [id, tally.counted(label, id, build(store))]),
    ),
  });
  return [
    row("put 4 KiB", (store) => putWorkload(store, payload(4 * KiB), PUT_BOUNDS)),
    row("put 1 MiB", (store) => putWorkload(store, payload(MiB), PUT_BOUNDS)),
    row("get latest 4 KiB", (store) => getLatestWorkload(store, payload(4 * KiB), GET_HISTORY)),
    row("get latest 1 MiB", (store) => getLatestWorkload(store, payload(MiB), GET_HISTORY)),
    row(`list versions of ${LIST_HISTORY}`, (store) => listVersionsWorkload(store, LIST_HISTORY)),
  ];
}
