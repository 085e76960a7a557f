import { isArtifactError } from "../../errors.js";
import type { RunStore, RunStoreBounds, RunStoreBoundsOptions } from "../../run-store.js";
import { check } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import type { RunStoreContext, RunStoreLaw } from "./context.js";
import { LIMIT_CODES, sizeOf } from "./model.js";

// How a store counts: text by its exact UTF-8 bytes at every byte bound, whatever it has or has
// not counted yet (no `artifacts()` call in between, which may count for it), registers that
// race each other never pass a bound together, and bounds are reported and validated.

const BOUND_NAMES = Object.keys(LIMIT_CODES) as (keyof RunStoreBounds)[];

/** "accepted", or the detail.limit of the quota_exceeded it failed with. */
async function outcomeOf(register: Promise<void>): Promise<unknown> {
  return register.then(
    () => "accepted",
    (error: unknown) => (isArtifactError(error, "quota_exceeded") ? error.detail.limit : error),
  );
}

/** "accepted", or the detail.limit the refusal must have (any one of several broken at once). */
type Outcome = string | readonly string[];
type Step = [runId: string, path: string, content: string | Uint8Array, outcome: Outcome];

const accepted = "accepted";
const perFile = LIMIT_CODES.maxBytesPerArtifact;
const perRun = LIMIT_CODES.maxBytesPerRun;
const total = LIMIT_CODES.maxTotalBytes;
const bytes = (size: number) => new Uint8Array(size).fill(7);

/**
 * Registers, removes and clears with the outcome each register must have. Text is mixed with
 * bytes, multi-byte with ASCII, so that a store charging text more (or less) than its UTF-8
 * bytes, or losing track of what it has counted, refuses one that fits or takes one that
 * does not.
 */
const COUNTING: {
  bounds: RunStoreBoundsOptions;
  steps: (Step | ["remove" | "clear", string, string?])[];
}[] = [
  {
    // Text, then bytes, to the total bound exactly: the text's 2 bytes, not its 2 units' 6.
    bounds: { maxTotalBytes: 6 },
    steps: [
      ["r1", "a", "ab", accepted],
      ["r1", "b", bytes(4), accepted],
      ["r2", "a", bytes(1), total],
      ["remove", "r1", "b"],
      ["r2", "a", "abcd", accepted],
      ["r3", "a", "x", total],
    ],
  },
  {
    // A counted file removed while text is not counted yet (the bound not reached, so
    // nothing forced a count): the text is still counted exactly.
    bounds: { maxTotalBytes: 10 },
    steps: [
      ["r1", "a", "ab", accepted],
      ["r2", "a", bytes(1), accepted],
      ["remove", "r2", "a"],
      ["r3", "a", bytes(8), accepted],
      ["r3", "b", bytes(1), total],
    ],
  },
  {
    // A counted file replaced while text is not counted yet: the same.
    bounds: { maxTotalBytes: 10 },
    steps: [
      ["r1", "a", bytes(1), accepted],
      ["r1", "b", "ab", accepted],
      ["r1", "a", bytes(1), accepted],
      ["r2", "a", bytes(7), accepted],
      ["r2", "b", bytes(1), total],
    ],
  },
  {
    // A run of text cleared, others left: what remains is counted exactly.
    bounds: { maxTotalBytes: 9, maxBytesPerRun: 5 },
    steps: [
      ["r1", "a", "abc", accepted],
      ["r2", "a", "xy", accepted],
      ["r2", "b", bytes(1), accepted],
      ["clear", "r1"],
      ["r3", "a", "vwxyz", accepted],
      ["r4", "a", "!", accepted],
      ["r4", "b", "!", total],
    ],
  },
  {
    // Upserts over text with text and bytes, and multi-byte text, at each byte bound.
    bounds: { maxBytesPerArtifact: 8, maxBytesPerRun: 10, maxTotalBytes: 16 },
    steps: [
      ["r1", "a", "éééé", accepted], // 4 units, 8 bytes: at the per-file bound
      ["r1", "big", "ééééé", [perFile, perRun, total]],
      ["r1", "b", "ab", accepted],
      ["r1", "c", "x", perRun],
      ["r2", "a", "abcdef", accepted],
      ["r2", "b", "x", total],
      ["r1", "a", "abc", accepted], // an upsert frees what it replaces
      ["r2", "b", "wxyz", accepted],
      ["r1", "c", "😀", total], // 2 units, 4 bytes: 9 in the run, 19 in all
      ["r2", "a", bytes(2), accepted],
      ["r1", "c", "😀", accepted],
      ["r1", "b", "ab", accepted],
      ["r1", "d", "a", accepted], // at both the run's and the store's bound
      ["r1", "e", bytes(1), [perRun, total]],
    ],
  },
];

async function textIsCountedExactly({ open }: RunStoreContext) {
  for (const [i, { bounds, steps }] of COUNTING.entries()) {
    const store = await open(bounds);
    const sizes = new Map<string, number>();
    for (const [j, step] of steps.entries()) {
      const what = `sequence ${i}, step ${j} (${JSON.stringify(step.slice(0, 3))})`;
      if (step[0] === "remove") {
        await store.remove(step[1], step[2] as string);
        sizes.delete(`${step[1]}\0${step[2]}`);
      } else if (step[0] === "clear") {
        await store.clear(step[1]);
        for (const key of [...sizes.keys()]) if (key.startsWith(`${step[1]}\0`)) sizes.delete(key);
      } else {
        const [runId, path, content, outcome] = step as Step;
        const actual = await outcomeOf(store.register(runId, "s", path, content));
        const allowed: readonly unknown[] = typeof outcome === "string" ? [outcome] : outcome;
        expectTrue(
          allowed.includes(actual),
          `${what}: expected ${allowed.join(" or ")}, got ${String(actual)}`,
        );
        if (outcome === accepted) sizes.set(`${runId}\0${path}`, sizeOf(content));
      }
    }
    for (const runId of new Set([...sizes.keys()].map((key) => key.split("\0")[0] as string))) {
      const expected = [...sizes.entries()]
        .filter(([key]) => key.startsWith(`${runId}\0`))
        .map(([key, size]) => [key.slice(runId.length + 1), size]);
      const listed = (await store.artifacts(runId)).map((entry) => [entry.path, entry.size]);
      expectEqual(
        [...listed].sort(),
        [...expected].sort(),
        `sequence ${i}: [path, size] of ${runId}`,
      );
    }
  }
}

/** Registers that race one another never pass a bound together. */
async function racingRegistersKeepTheBounds({ open }: RunStoreContext) {
  const cases: [RunStoreBoundsOptions, (store: RunStore) => Promise<void>[], number, string][] = [
    [
      { maxArtifactsPerRun: 3 },
      (store) => ["a", "b", "c", "d", "e"].map((path) => store.register("run", "s", path, path)),
      3,
      LIMIT_CODES.maxArtifactsPerRun,
    ],
    [
      { maxRuns: 2 },
      (store) => ["r1", "r2", "r3", "r4"].map((runId) => store.register(runId, "s", "a", "x")),
      2,
      LIMIT_CODES.maxRuns,
    ],
    [
      { maxTotalBytes: 10 },
      (store) => ["r1", "r2", "r3"].map((runId) => store.register(runId, "s", "a", "abcd")),
      2,
      LIMIT_CODES.maxTotalBytes,
    ],
  ];
  for (const [bounds, registers, fits, limit] of cases) {
    const store = await open(bounds);
    const outcomes = await Promise.all(registers(store).map(outcomeOf));
    const what = `racing registers under ${JSON.stringify(bounds)}`;
    expectEqual(outcomes.filter((o) => o === accepted).length, fits, `${what}: accepted`);
    expectTrue(
      outcomes.every((o) => o === accepted || o === limit),
      `${what}: every refusal is ${limit}, got ${JSON.stringify(outcomes)}`,
    );
  }
}

/** bounds() is what was asked for, defaults are positive integers, bad bounds are refused. */
async function boundsAreReportedAndValidated({ open, options }: RunStoreContext) {
  const asked: RunStoreBoundsOptions = { maxRuns: 7, maxBytesPerRun: 99 };
  const store = await open(asked);
  const reported = store.bounds();
  expectEqual(Object.keys(reported).sort(), [...BOUND_NAMES].sort(), "bounds() names every bound");
  for (const name of BOUND_NAMES) {
    const value = reported[name];
    if (asked[name] !== undefined) expectEqual(value, asked[name], `bounds().${name}`);
    else {
      expectTrue(
        Number.isSafeInteger(value) && value > 0,
        `bounds().${name}: a default must be a positive integer, got ${String(value)}`,
      );
    }
  }
  // What bounds() hands out is not the store's to be changed through: a caller writing to it
  // changes neither what the store reports nor what it enforces.
  try {
    Object.assign(reported, { maxRuns: 1_000_000, maxBytesPerRun: 1_000_000 });
  } catch {
    // frozen: refused in strict mode, as it should be
  }
  expectEqual(store.bounds().maxRuns, asked.maxRuns, "bounds().maxRuns after a caller wrote to it");
  const tooBig = new Uint8Array((asked.maxBytesPerRun ?? 0) + 1);
  const error = await expectArtifactError(
    () => store.register("r", "s", "big", tooBig),
    "quota_exceeded",
    "a register past maxBytesPerRun after a caller wrote to bounds()",
  );
  expectTrue(isArtifactError(error), "quota_exceeded");
  const bad: [unknown, string][] = [
    [{ maxFiles: 3 }, "bounds.maxFiles"],
    [{ maxRuns: 0 }, "maxRuns"],
    [{ maxTotalBytes: 1.5 }, "maxTotalBytes"],
    [{ maxBytesPerRun: "9" }, "maxBytesPerRun"],
    [{ maxArtifactsPerRun: -1 }, "maxArtifactsPerRun"],
    [{ maxBytesPerArtifact: Number.POSITIVE_INFINITY }, "maxBytesPerArtifact"],
  ];
  for (const [bounds, field] of bad) {
    const what = `a store with bounds ${JSON.stringify(bounds)}`;
    const error = await expectArtifactError(
      async () => {
        const subject = await options.create(bounds as RunStoreBoundsOptions);
        await subject.cleanup?.();
        fail(`${what}: created`);
      },
      "invalid_argument",
      what,
    );
    expectEqual(isArtifactError(error) && error.detail.field, field, `${what}: detail.field`);
  }
}

export const COUNTING_LAWS: readonly RunStoreLaw[] = Object.freeze([
  check(
    "bounds",
    "text counts its exact UTF-8 bytes at every byte bound, after removes, clears and upserts, counted or not",
    textIsCountedExactly,
  ),
  check(
    "bounds",
    "registers racing one another never pass a bound together",
    racingRegistersKeepTheBounds,
  ),
  check(
    "bounds",
    "bounds() reports what was asked and positive defaults; bad bounds are invalid_argument",
    boundsAreReportedAndValidated,
  ),
] as RunStoreLaw[]);
