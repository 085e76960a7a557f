import fc from "fast-check";
import { isArtifactError } from "../../errors.js";
import type { RunStore, RunStoreBounds, RunStoreBoundsOptions } from "../../run-store.js";
import { type ConformanceCheck, check } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { bytesArb } from "../payload.js";
import { registerCopy, runStoreCommands } from "./commands.js";
import { bindRunStoreLaw, type RunStoreContext, type RunStoreLaw } from "./context.js";
import { COUNTING_LAWS } from "./counting-checks.js";
import { EDGE_LAWS } from "./edge-checks.js";
import { invalidCalls } from "./invalid-calls.js";
import { LIMIT_CODES, type ModelFile, RunStoreModel, sizeOf } from "./model.js";
import { expectContent, expectSnapshot } from "./observe.js";
import { SCALE_LAWS } from "./scale-checks.js";
import { type RunStoreConformanceOptions, SMALL_BOUNDS } from "./subject.js";

const file = (path: string, stepId: string, content: string | Uint8Array): ModelFile => ({
  path,
  stepId,
  content,
  size: sizeOf(content),
});

/** Registers each file, in order, into `runId`. */
async function registerAll(store: RunStore, runId: string, files: readonly ModelFile[]) {
  for (const f of files) await registerCopy(store, runId, f.stepId, f.path, f.content);
}

async function upsertInPlace({ open }: RunStoreContext) {
  const store = await open({});
  const a = file("a", "s1", "alpha");
  const b = file("b", "s1", new Uint8Array([1, 2, 3]));
  const c = file("c/d", "s1", "gamma");
  await registerAll(store, "run", [a, b, c]);
  const b2 = file("b", "s2", "beta, again");
  await registerCopy(store, "run", b2.stepId, b2.path, b2.content);
  expectSnapshot(await store.artifacts("run"), [a, b2, c], "after upserting the middle file");
  expectContent(await store.find("run", "b"), b2.content, "find after upsert");
  // The same content again under another step: still a write, which names its step.
  const sameA = file("a", "s3", "alpha");
  const sameC = file("c/d", "s3", "gamma");
  await registerAll(store, "run", [sameA, sameC]);
  expectSnapshot(
    await store.artifacts("run"),
    [sameA, b2, sameC],
    "after upserting the same content under another step",
  );
}

async function upsertAtCountBound({ open }: RunStoreContext) {
  const store = await open({ maxArtifactsPerRun: 3 });
  const { maxArtifactsPerRun } = store.bounds();
  const files = Array.from({ length: maxArtifactsPerRun }, (_, i) => file(`f${i}`, "s1", "x"));
  await registerAll(store, "run", files);
  const last = files.at(-1) as ModelFile;
  const replaced = file(last.path, "s2", "y");
  await registerCopy(store, "run", replaced.stepId, replaced.path, replaced.content);
  const error = await expectArtifactError(
    () => store.register("run", "s2", "one-too-many", "z"),
    "quota_exceeded",
    "a new path past maxArtifactsPerRun",
  );
  expectEqual(
    isArtifactError(error) && error.detail.limit,
    LIMIT_CODES.maxArtifactsPerRun,
    "detail.limit",
  );
  expectSnapshot(
    await store.artifacts("run"),
    [...files.slice(0, -1), replaced],
    "at the count bound",
  );
}

type Placed = [runId: string, file: ModelFile];

interface BoundEdge {
  bounds: RunStoreBoundsOptions;
  /** Registers that reach the bound exactly. */
  fill: Placed[];
  /** One more byte or file: refused. */
  over: Placed;
  /** A remove that frees room, the register that uses exactly that room, and one past it. */
  free?: { remove: [runId: string, path: string]; refill: Placed; again: Placed };
}

/** For each bound: fill up to it exactly, then one byte or file more must fail and change nothing. */
const BOUND_EDGES: Record<keyof RunStoreBounds, BoundEdge> = {
  maxBytesPerArtifact: {
    bounds: { maxBytesPerArtifact: 4 },
    fill: [["r1", file("a", "s", "abcd")]],
    over: ["r1", file("b", "s", "é€")], // 5 UTF-8 bytes, 2 UTF-16 units
  },
  maxArtifactsPerRun: {
    bounds: { maxArtifactsPerRun: 2 },
    fill: [
      ["r1", file("a", "s", "1")],
      ["r1", file("b", "s", "2")],
    ],
    over: ["r1", file("c", "s", "3")],
    free: {
      remove: ["r1", "a"],
      refill: ["r1", file("c", "s", "3")],
      again: ["r1", file("d", "s", "4")],
    },
  },
  maxBytesPerRun: {
    bounds: { maxBytesPerRun: 6 },
    fill: [
      ["r1", file("a", "s", "abc")],
      ["r1", file("b", "s", new Uint8Array(3))],
    ],
    over: ["r1", file("a", "s", "abcd")], // an upsert that grows the run
    free: {
      remove: ["r1", "b"],
      refill: ["r1", file("c", "s", new Uint8Array(3))],
      again: ["r1", file("a", "s", "abcd")],
    },
  },
  maxRuns: {
    bounds: { maxRuns: 2 },
    fill: [
      ["r1", file("a", "s", "1")],
      ["r2", file("a", "s", "2")],
    ],
    over: ["r3", file("a", "s", "3")],
    free: {
      remove: ["r1", "a"], // the run's last file: the run is gone
      refill: ["r3", file("a", "s", "3")],
      again: ["r4", file("a", "s", "4")],
    },
  },
  maxTotalBytes: {
    bounds: { maxTotalBytes: 6 },
    fill: [
      ["r1", file("a", "s", "abc")],
      ["r2", file("a", "s", "abc")],
    ],
    over: ["r3", file("a", "s", "a")],
    free: {
      remove: ["r2", "a"],
      refill: ["r3", file("a", "s", "xyz")],
      again: ["r1", file("b", "s", "a")],
    },
  },
};

/** Refuses `placed` with the bound's quota_exceeded and changes nothing. */
async function expectRefused(
  store: RunStore,
  model: RunStoreModel,
  bound: keyof RunStoreBounds,
  [runId, f]: Placed,
  what: string,
) {
  const error = await expectArtifactError(
    () => store.register(runId, f.stepId, f.path, f.content),
    "quota_exceeded",
    what,
  );
  expectEqual(
    isArtifactError(error) && error.detail.limit,
    LIMIT_CODES[bound],
    `${what}: detail.limit`,
  );
  expectSnapshot(await store.artifacts(runId), model.files(runId), `run ${runId} after ${what}`);
}

/**
 * The bound refuses exactly one byte or file more; a remove frees exactly its room. With
 * `reopened`, the store is reopened once it is full: what it counted must be counted again.
 */
function boundIsExact(bound: keyof RunStoreBounds, reopened = false) {
  return async ({ open, reopen }: RunStoreContext) => {
    const { bounds, fill, over, free } = BOUND_EDGES[bound];
    let store = await open(bounds);
    expectEqual(store.bounds()[bound], bounds[bound], `bounds().${bound}`);
    const model = new RunStoreModel(store.bounds());
    const register = async ([runId, f]: Placed) => {
      await registerCopy(store, runId, f.stepId, f.path, f.content);
      model.register(runId, f);
    };
    for (const placed of fill) await register(placed);
    if (reopened) store = await reopen();
    await expectRefused(store, model, bound, over, `register past ${bound}`);
    for (const [runId] of fill) {
      expectSnapshot(await store.artifacts(runId), model.files(runId), `run ${runId} at the bound`);
    }
    if (!free) return;
    const [runId, path] = free.remove;
    await store.remove(runId, path);
    model.remove(runId, path);
    await register(free.refill).catch((error: unknown) =>
      fail(
        `register into the room a remove freed under ${bound}: expected success, got ${String(error)}`,
      ),
    );
    expectSnapshot(
      await store.artifacts(free.refill[0]),
      model.files(free.refill[0]),
      "the run after the room was used again",
    );
    await expectRefused(
      store,
      model,
      bound,
      free.again,
      `register past ${bound} once the room is used again`,
    );
  };
}

async function runsAreIsolated({ open }: RunStoreContext) {
  const store = await open({});
  const one = file("shared/path", "s1", "run one");
  const two = file("shared/path", "s1", new Uint8Array([2]));
  await registerAll(store, "run-1", [one, file("only-in-1", "s1", "x")]);
  await registerAll(store, "run-1/x", [two]);
  expectContent(await store.find("run-1/x", "shared/path"), two.content, "find in the second run");
  expectTrue(
    (await store.find("run-1/x", "only-in-1")) === undefined,
    "a run sees another run's path",
  );
  expectTrue(
    (await store.find("run-2", "shared/path")) === undefined,
    "an unknown run sees a file",
  );
  await store.remove("run-1/x", "shared/path");
  expectContent(
    await store.find("run-1", "shared/path"),
    one.content,
    "remove reached another run",
  );
  await store.clear("run-1");
  expectSnapshot(await store.artifacts("run-1"), [], "after clear");
  await registerAll(store, "run-1/x", [two]);
  expectSnapshot(await store.artifacts("run-1/x"), [two], "clear reached another run");
}

async function removeAndClearAreIdempotent({ open }: RunStoreContext) {
  const store = await open({});
  const a = file("a", "s", "a");
  await registerAll(store, "run", [a, file("b", "s", "b")]);
  await store.remove("run", "b");
  await store.remove("run", "b");
  await store.remove("run", "never-there");
  await store.remove("unknown-run", "a");
  expectSnapshot(await store.artifacts("run"), [a], "after repeated removes");
  await store.clear("run");
  await store.clear("run");
  await store.clear("unknown-run");
  expectSnapshot(await store.artifacts("run"), [], "after repeated clears");
  expectTrue((await store.find("run", "a")) === undefined, "find after clear");
}

async function snapshotIsImmutable({ open }: RunStoreContext) {
  const store = await open({});
  const a = file("a", "s", new Uint8Array([1, 2, 3]));
  const b = file("b", "s", "bee");
  await registerAll(store, "run", [a, b]);
  const snapshot = await store.artifacts("run");
  const attempt = (change: () => void) => {
    try {
      change();
    } catch {
      // a frozen snapshot throws in strict mode; either way nothing may change
    }
  };
  attempt(() => (snapshot as unknown as ModelFile[]).push(file("x", "s", "x")));
  attempt(() => (snapshot as unknown as ModelFile[]).pop());
  attempt(() => Object.assign(snapshot[1] as object, { content: "changed", size: 7 }));
  const bytes = snapshot[0]?.content;
  if (bytes instanceof Uint8Array) bytes.fill(9);
  expectSnapshot(await store.artifacts("run"), [a, b], "the store after changing a snapshot");
  await registerAll(store, "run", [file("b", "s2", "new"), file("c", "s", "c")]);
  await store.remove("run", "a");
  expectEqual(
    snapshot.map((entry) => entry.path),
    ["a", "b"],
    "an earlier snapshot after later writes",
  );
  expectContent(snapshot[1]?.content, b.content, "an earlier snapshot's content after an upsert");
  expectTrue(Object.isFrozen(snapshot), "the snapshot array is not frozen");
}

async function bytesAreCopied({ open }: RunStoreContext) {
  const store = await open({});
  const sent = new Uint8Array([1, 2, 3]);
  await store.register("run", "s", "bin", sent);
  sent.fill(0);
  const found = await store.find("run", "bin");
  expectContent(found, new Uint8Array([1, 2, 3]), "find after the caller reused its buffer");
  if (found instanceof Uint8Array) found.fill(7);
  expectContent(
    await store.find("run", "bin"),
    new Uint8Array([1, 2, 3]),
    "find after a reader changed its copy",
  );
}

async function contentKeepsItsKind({ open, property }: RunStoreContext) {
  const store = await open({});
  await property(
    [fc.oneof(fc.string({ unit: "binary", maxLength: 64 }), bytesArb(64 * 1024))],
    async (content) => {
      await registerCopy(store, "kinds", "s", "file", content);
      expectContent(await store.find("kinds", "file"), content, "find");
      expectSnapshot(await store.artifacts("kinds"), [file("file", "s", content)], "artifacts");
    },
    { scale: 1 / 4 },
  );
}

async function unknownRunIsEmpty({ open }: RunStoreContext) {
  const store = await open({});
  expectSnapshot(await store.artifacts("nobody"), [], "artifacts of an unknown run");
  expectTrue((await store.find("nobody", "a")) === undefined, "find in an unknown run");
}

async function invalidArgumentsChangeNothing({ open }: RunStoreContext) {
  const store = await open({});
  const a = file("a", "s", "kept");
  await registerAll(store, "run", [a]);
  for (const { label, field, call } of invalidCalls("run", "a")) {
    const error = await expectArtifactError(() => call(store), "invalid_argument", label);
    expectEqual(isArtifactError(error) && error.detail.field, field, `${label}: detail.field`);
  }
  expectSnapshot(await store.artifacts("run"), [a], "after every invalid call");
}

/**
 * Random register/upsert/find/artifacts/remove/clear sequences over several runs, with small
 * bounds that fill, free and fill again, match the reference model.
 */
async function sequencesMatchTheModel({ hooks, fresh, property, options }: RunStoreContext) {
  await property([runStoreCommands(hooks.reopen, options.replayPath)], (commands) =>
    fresh(SMALL_BOUNDS, (holder) =>
      fc.asyncModelRun(() => ({ model: new RunStoreModel(SMALL_BOUNDS), real: holder }), commands),
    ),
  );
}

/** Files, step ids, order and usage survive a reopen. */
async function stateSurvivesReopen({ open, reopen }: RunStoreContext) {
  const first = await open({ maxArtifactsPerRun: 3 });
  const files = [
    file("a", "s1", "alpha"),
    file("b/c", "s1", new Uint8Array([0, 255])),
    file("é", "s2", ""),
  ];
  await registerAll(first, "run", files);
  const replaced = file("a", "s3", "alpha 2");
  await registerCopy(first, "run", replaced.stepId, replaced.path, replaced.content);
  const store = await reopen();
  const expected = [replaced, ...files.slice(1)];
  expectSnapshot(await store.artifacts("run"), expected, "after reopen");
  await expectArtifactError(
    () => store.register("run", "s4", "d", "x"),
    "quota_exceeded",
    "the count bound after reopen",
  );
  await store.register("run", "s4", "b/c", "upsert after reopen");
  expectEqual(
    (await store.artifacts("run")).map((entry) => entry.path),
    ["a", "b/c", "é"],
    "order after an upsert that follows a reopen",
  );
}

const BOUND_NAMES = Object.keys(BOUND_EDGES) as (keyof RunStoreBounds)[];

/** Every law of the run-store contract, in the order they are reported. */
export const RUN_STORE_LAWS: readonly RunStoreLaw[] = Object.freeze([
  check(
    "model",
    "random register/upsert/find/artifacts/remove/clear sequences with small bounds that fill, free and fill again match the reference model",
    sequencesMatchTheModel,
  ),
  check(
    "upsert",
    "last write wins, the same content under another step too, and the file keeps its position",
    upsertInPlace,
  ),
  check("bounds", "an upsert at maxArtifactsPerRun is not counted", upsertAtCountBound),
  ...BOUND_NAMES.map((bound) =>
    check(
      "bounds",
      `${bound} fails closed with quota_exceeded (${LIMIT_CODES[bound]})${BOUND_EDGES[bound].free ? "; a remove frees exactly its room" : ""}`,
      boundIsExact(bound),
    ),
  ),
  ...COUNTING_LAWS,
  check("isolation", "a run never sees, removes or clears another run's files", runsAreIsolated),
  check("remove", "remove and clear are idempotent", removeAndClearAreIdempotent),
  check("artifacts", "an immutable snapshot, unchanged by later writes", snapshotIsImmutable),
  check("content", "bytes are copied in and out", bytesAreCopied),
  check("content", "strings come back as strings, bytes as bytes", contentKeepsItsKind),
  check("unknown run", "artifacts is empty and find is undefined", unknownRunIsEmpty),
  check(
    "validation",
    "bad ids, paths and contents are invalid_argument and change nothing",
    invalidArgumentsChangeNothing,
  ),
  check("durability", "files, step ids, order and usage survive a reopen", stateSurvivesReopen, {
    needs: ["reopen"],
  }),
  ...BOUND_NAMES.map((bound) =>
    check(
      "durability",
      `${bound}, filled and reopened, refuses exactly one more${BOUND_EDGES[bound].free ? "; a remove frees exactly its room" : ""}`,
      boundIsExact(bound, true),
      { needs: ["reopen"] },
    ),
  ),
  ...SCALE_LAWS,
  ...EDGE_LAWS,
] as RunStoreLaw[]);

/** Every run-store check bound to `options` (only those matching `options.only`, if given). */
export function runStoreChecks(
  options: RunStoreConformanceOptions,
  subjectName = "my-run-store",
): ConformanceCheck[] {
  return RUN_STORE_LAWS.map((law) => bindRunStoreLaw(law, options, subjectName)).filter(
    (c) => options.only === undefined || c.name.includes(options.only),
  );
}
