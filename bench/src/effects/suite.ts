import { openOurs } from "../fs/suite.js";
import { KitStore } from "../kit-store.js";
import { ScratchSpace } from "../scratch.js";
import type { StoreUnderTest } from "../store.js";
import { compare, type Row, type Suite } from "../suite.js";
import { KiB, MiB, type PutBounds, payload, putWorkload } from "../workloads.js";
import { JournaledFsStore } from "./journaled-store.js";

const PUT_BOUNDS: PutBounds = { maxBytes: 256 * MiB, maxVersions: 2_000 };

/** Issue 18: a journaled put (intent, put, applied) over fs with an fs journal vs a plain put. */
export function effectsSuite(): Suite {
  const scratch = new ScratchSpace();
  const stores: Record<string, StoreUnderTest> = {
    plain: new KitStore(openOurs(scratch, "plain")),
    journaled: new JournaledFsStore(scratch, "journaled", false),
    committed: new JournaledFsStore(scratch, "committed", true),
  };
  const put = (label: string, size: number): Row => ({
    label: `durable put ${label}`,
    batch: 1,
    workloads: Object.fromEntries(
      Object.entries(stores).map(([id, store]) => [
        id,
        putWorkload(store, payload(size), PUT_BOUNDS),
      ]),
    ),
    ...(size === 4 * KiB && {
      target: { comparison: "journaledVsPlain", bound: 2, holds: "atMost" },
    }),
  });
  return {
    title: "effects",
    columns: [
      { id: "plain", label: "plain put (@artifact-kit/fs)" },
      { id: "journaled", label: "journaled put (intent, put, applied)" },
      { id: "committed", label: "journaled put + commit" },
    ],
    comparisons: [
      compare("journaledVsPlain", "journaled/plain time", "journaled", "plain", "time"),
      compare("committedVsPlain", "journaled+commit/plain time", "committed", "plain", "time"),
    ],
    rows: [put("4 KiB", 4 * KiB), put("1 MiB", MiB)],
    close: async () => {
      for (const store of Object.values(stores)) await store.close();
      scratch.close();
    },
  };
}
