import fc from "fast-check";
import { isArtifactError } from "../../errors.js";
import type { RunStore, RunStoreBounds, RunStoreBoundsOptions } from "../../run-store.js";
import { type ConformanceCheck, propertyParameters, skipped } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue } from "../expect.js";
import { registerCopy, runStoreCommands } from "./commands.js";
import { invalidCalls } from "./invalid-calls.js";
import { LIMIT_CODES, type ModelFile, RunStoreModel, sizeOf } from "./model.js";
import { expectContent, expectSnapshot } from "./observe.js";
import { type RunStoreConformanceOptions, SMALL_BOUNDS, withRunStore } from "./subject.js";

type Law = (store: RunStore) => Promise<void>;

const law = (
  name: string,
  options: RunStoreConformanceOptions,
  bounds: RunStoreBoundsOptions,
  body: Law,
): ConformanceCheck => ({
  name,
  run: () => withRunStore(options, bounds, (holder) => body(holder.store)).then(() => undefined),
});

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

const upsertInPlace: Law = async (store) => {
  const a = file("a", "s1", "alpha");
  const b = file("b", "s1", new Uint8Array([1, 2, 3]));
  const c = file("c/d", "s1", "gamma");
  await registerAll(store, "run", [a, b, c]);
  const b2 = file("b", "s2", "beta, again");
  await registerCopy(store, "run", b2.stepId, b2.path, b2.content);
  expectSnapshot(await store.artifacts("run"), [a, b2, c], "after upserting the middle file");
  expectContent(await store.find("run", "b"), b2.content, "find after upsert");
};

const upsertAtCountBound: Law = async (store) => {
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
};

/** For each bound: fill up to it exactly, then one byte or file more must fail and change nothing. */
const BOUND_EDGES: Record<
  keyof RunStoreBounds,
  { bounds: RunStoreBoundsOptions; fill: [string, ModelFile][]; over: [string, ModelFile] }
> = {
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
  },
  maxBytesPerRun: {
    bounds: { maxBytesPerRun: 6 },
    fill: [
      ["r1", file("a", "s", "abc")],
      ["r1", file("b", "s", new Uint8Array(3))],
    ],
    over: ["r1", file("a", "s", "abcd")], // an upsert that grows the run
  },
  maxRuns: {
    bounds: { maxRuns: 2 },
    fill: [
      ["r1", file("a", "s", "1")],
      ["r2", file("a", "s", "2")],
    ],
    over: ["r3", file("a", "s", "3")],
  },
  maxTotalBytes: {
    bounds: { maxTotalBytes: 6 },
    fill: [
      ["r1", file("a", "s", "abc")],
      ["r2", file("a", "s", "abc")],
    ],
    over: ["r3", file("a", "s", "a")],
  },
};

function boundChecks(options: RunStoreConformanceOptions): ConformanceCheck[] {
  return (Object.keys(BOUND_EDGES) as (keyof RunStoreBounds)[]).map((bound) => {
    const { bounds, fill, over } = BOUND_EDGES[bound];
    return law(
      `bounds: ${bound} fails closed with quota_exceeded (${LIMIT_CODES[bound]})`,
      options,
      bounds,
      async (store) => {
        expectEqual(store.bounds()[bound], bounds[bound], `bounds().${bound}`);
        const model = new RunStoreModel(store.bounds());
        for (const [runId, f] of fill) {
          await registerCopy(store, runId, f.stepId, f.path, f.content);
          model.register(runId, f);
        }
        const [runId, f] = over;
        const error = await expectArtifactError(
          () => store.register(runId, f.stepId, f.path, f.content),
          "quota_exceeded",
          `register past ${bound}`,
        );
        expectEqual(
          isArtifactError(error) && error.detail.limit,
          LIMIT_CODES[bound],
          "detail.limit",
        );
        for (const id of new Set([runId, ...fill.map(([r]) => r)])) {
          expectSnapshot(
            await store.artifacts(id),
            model.files(id),
            `run ${id} after the refused register`,
          );
        }
      },
    );
  });
}

const runsAreIsolated: Law = async (store) => {
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
};

const removeAndClearAreIdempotent: Law = async (store) => {
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
};

const snapshotIsImmutable: Law = async (store) => {
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
};

const bytesAreCopied: Law = async (store) => {
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
};

const contentKeepsItsKind: Law = async (store) => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.string({ unit: "binary", maxLength: 64 }), fc.uint8Array({ maxLength: 64 })),
      async (content) => {
        await registerCopy(store, "kinds", "s", "file", content);
        expectContent(await store.find("kinds", "file"), content, "find");
        expectSnapshot(await store.artifacts("kinds"), [file("file", "s", content)], "artifacts");
      },
    ),
    { numRuns: 25 },
  );
};

const unknownRunIsEmpty: Law = async (store) => {
  expectSnapshot(await store.artifacts("nobody"), [], "artifacts of an unknown run");
  expectTrue((await store.find("nobody", "a")) === undefined, "find in an unknown run");
};

const invalidArgumentsChangeNothing: Law = async (store) => {
  const a = file("a", "s", "kept");
  await registerAll(store, "run", [a]);
  for (const { label, call } of invalidCalls("run", "a")) {
    await expectArtifactError(() => call(store), "invalid_argument", label);
  }
  expectSnapshot(await store.artifacts("run"), [a], "after every invalid call");
};

function modelCheck(options: RunStoreConformanceOptions): ConformanceCheck {
  return {
    name: "model: random register/upsert/find/artifacts/remove/clear sequences over several runs, with small bounds, match the reference model",
    async run() {
      await fc.assert(
        fc.asyncProperty(runStoreCommands(options.reopen), (commands) =>
          withRunStore(options, SMALL_BOUNDS, (holder) =>
            fc.asyncModelRun(
              () => ({ model: new RunStoreModel(SMALL_BOUNDS), real: holder }),
              commands,
            ),
          ),
        ),
        propertyParameters(options),
      );
      return undefined;
    },
  };
}

function durabilityCheck(options: RunStoreConformanceOptions): ConformanceCheck {
  const name = "durability: files, step ids, order and usage survive a reopen";
  const { reopen } = options;
  if (!reopen) return { name, run: async () => skipped("no reopen given: the store is volatile") };
  return law(name, options, { maxArtifactsPerRun: 3 }, async (first) => {
    const files = [
      file("a", "s1", "alpha"),
      file("b/c", "s1", new Uint8Array([0, 255])),
      file("é", "s2", ""),
    ];
    await registerAll(first, "run", files);
    const replaced = file("a", "s3", "alpha 2");
    await registerCopy(first, "run", replaced.stepId, replaced.path, replaced.content);
    const store = await reopen(first);
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
  });
}

/** Every run-store check, in a stable order; `describeRunStore` wires each into vitest. */
export function runStoreChecks(options: RunStoreConformanceOptions): ConformanceCheck[] {
  return [
    modelCheck(options),
    law("upsert: last write wins and the file keeps its position", options, {}, upsertInPlace),
    law(
      "bounds: an upsert at maxArtifactsPerRun is not counted",
      options,
      { maxArtifactsPerRun: 3 },
      upsertAtCountBound,
    ),
    ...boundChecks(options),
    law(
      "isolation: a run never sees, removes or clears another run's files",
      options,
      {},
      runsAreIsolated,
    ),
    law("remove and clear are idempotent", options, {}, removeAndClearAreIdempotent),
    law(
      "artifacts: an immutable snapshot, unchanged by later writes",
      options,
      {},
      snapshotIsImmutable,
    ),
    law("content: bytes are copied in and out", options, {}, bytesAreCopied),
    law("content: strings come back as strings, bytes as bytes", options, {}, contentKeepsItsKind),
    law("unknown run: artifacts is empty and find is undefined", options, {}, unknownRunIsEmpty),
    law(
      "validation: bad ids, paths and contents are invalid_argument and change nothing",
      options,
      {},
      invalidArgumentsChangeNothing,
    ),
    durabilityCheck(options),
  ];
}
