import { describe, expect, test } from "vitest";
import { type HistoryEntry, linearize } from "../src/conformance/linearizability.js";
import {
  type HistoryOp,
  type HistoryOutput,
  historySpec,
} from "../src/conformance/linearizable-ops.js";

// The checker and the specification the kit's linearizability law judges histories by, on
// hand-written histories: what the law must accept, and what it must refuse.

type Entry = HistoryEntry<HistoryOp, HistoryOutput>;
const spec = historySpec({ pageLimit: 100, legacyListLimit: 100 });
const at = (
  client: number,
  invokedAt: number,
  returnedAt: number,
  input: HistoryOp,
  output: HistoryOutput,
): Entry => ({ client, input, output, invokedAt, returnedAt });
const put = (version: number, tag: number, from: number, to: number, client = 0) =>
  at(client, from, to, { kind: "put", name: "n", tag }, { put: version });
const deleteLatest = (from: number, to: number, concurrentPuts?: number[]) =>
  at(
    1,
    from,
    to,
    {
      kind: "delete",
      name: "n",
      selector: "latest",
      ...(concurrentPuts ? { concurrentPuts } : {}),
    },
    { deleted: true },
  );
const versions = (seen: [number, number][], from: number, to: number) =>
  at(2, from, to, { kind: "listVersions", name: "n" }, { versions: seen });

describe("delete('latest') in a history", () => {
  test("one that overlaps no put must remove the newest live version", () => {
    const history = [
      put(1, 1, 1, 2),
      put(2, 2, 3, 4),
      deleteLatest(5, 6),
      versions([[2, 2]], 7, 8),
    ];
    expect(linearize(history, spec)).toBeUndefined();
    history[3] = versions([[1, 1]], 7, 8);
    expect(linearize(history, spec)).toEqual([0, 1, 2, 3]);
  });

  test("one that overlaps a put may miss that put's version, never an older one", () => {
    // The delete found version 1 latest; the put published 2 (seen by a listing) before the
    // delete removed 1.
    const raced = [
      put(1, 1, 1, 2),
      put(2, 2, 3, 8, 3),
      deleteLatest(4, 10, [2]),
      versions(
        [
          [1, 1],
          [2, 2],
        ],
        5,
        7,
      ),
      versions([[2, 2]], 11, 12),
    ];
    expect(linearize(raced, spec)).toBeDefined();
    // Without knowing the put ran at the same time, the same history is not linearizable.
    raced[2] = deleteLatest(4, 10);
    expect(linearize(raced, spec)).toBeUndefined();
  });
});
