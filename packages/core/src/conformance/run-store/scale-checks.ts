import { isArtifactError } from "../../errors.js";
import type { RunStore } from "../../run-store.js";
import { check, skip } from "../check.js";
import { expectArtifactError, expectEqual, fail } from "../expect.js";
import { registerCopy } from "./commands.js";
import type { RunStoreContext, RunStoreLaw } from "./context.js";
import { LIMIT_CODES, type ModelFile, RunStoreModel, sizeOf } from "./model.js";
import { expectContent, expectSnapshot } from "./observe.js";

// Scale and the value domain: a store must hold more runs, and more files in a run, than any
// page or batch it may read them in (the 257th and 1,025th item, a reload's second page), and
// tell apart every id and path the contract allows.

/** Past 256 and 1,024, and past a round page of 1,000. */
export const DEFAULT_SCALE = 1_030;

/** i -> a permutation of 0..n-1 (7919 is prime, coprime to n): order differs from name order. */
const scattered = (i: number, n: number) => (i * 7919) % n;

function bigRun(scale: number): ModelFile[] {
  return Array.from({ length: scale }, (_, i) => {
    const content = i % 3 === 0 ? new Uint8Array([i & 0xff, i >> 8]) : `file ${i}`;
    const path = `dir-${i % 5}/p${scattered(i, scale)}`;
    return { path, stepId: `step-${i % 7}`, content, size: sizeOf(content) };
  });
}

const smallRunId = (r: number, scale: number) => `run-${scattered(r, scale)}`;

/** Checks every run and file of the scale law, then the bounds it fills exactly. */
async function expectAtScale(
  scale: number,
  store: RunStore,
  model: RunStoreModel,
  files: readonly ModelFile[],
  what: string,
) {
  expectSnapshot(await store.artifacts("big"), files, `${what}: the run of ${scale} files`);
  for (let r = 0; r < scale; r++) {
    const runId = smallRunId(r, scale);
    expectContent(await store.find(runId, "only"), `only ${r}`, `${what}: find in ${runId}`);
  }
  const full = await expectArtifactError(
    () => store.register("big", "s", "one-more", "x"),
    "quota_exceeded",
    `${what}: a new path past maxArtifactsPerRun = ${scale}`,
  );
  expectEqual(
    isArtifactError(full) && full.detail.limit,
    LIMIT_CODES.maxArtifactsPerRun,
    `${what}: detail.limit`,
  );
  const runs = await expectArtifactError(
    () => store.register("one-run-too-many", "s", "a", "x"),
    "quota_exceeded",
    `${what}: a run past maxRuns = ${scale + 1}`,
  );
  expectEqual(
    isArtifactError(runs) && runs.detail.limit,
    LIMIT_CODES.maxRuns,
    `${what}: detail.limit`,
  );
  expectSnapshot(await store.artifacts("big"), model.files("big"), `${what}: after the refusals`);
}

async function manyRunsAndFiles({ open, reopen, hooks, options }: RunStoreContext) {
  const scale = options.scale ?? DEFAULT_SCALE;
  const bounds = { maxRuns: scale + 1, maxArtifactsPerRun: scale };
  const store = await open(bounds);
  const model = new RunStoreModel(store.bounds());
  const files = bigRun(scale);
  for (const file of files) {
    await registerCopy(store, "big", file.stepId, file.path, file.content);
    model.register("big", file);
  }
  for (let r = 0; r < scale; r++)
    await store.register(smallRunId(r, scale), "s", "only", `only ${r}`);
  await expectAtScale(scale, store, model, files, "at scale");
  if (!hooks.reopen) return;
  await expectAtScale(scale, await reopen(), model, files, "at scale, after a reopen");
}

/** Ids and paths that differ only by case, whitespace or normalization, or long in bytes. */
const LOOKALIKES = [
  "run",
  "Run",
  "run ",
  " run",
  "caf\u00e9",
  "cafe\u0301",
  "\u{1F600}".repeat(64),
  "ß",
  "ss",
  "a\u200bb",
  "ab",
];

async function lookalikesAreDistinct({ open, reopen, hooks }: RunStoreContext) {
  const store = await open({});
  const model = new RunStoreModel(store.bounds());
  for (const [i, runId] of LOOKALIKES.entries()) {
    for (const [j, path] of LOOKALIKES.entries()) {
      const content = `${i}/${j}`;
      await store.register(runId, runId, path, content);
      model.register(runId, { path, stepId: runId, content, size: sizeOf(content) });
    }
  }
  const expectAll = async (reader: RunStore, what: string) => {
    for (const runId of LOOKALIKES) {
      expectSnapshot(
        await reader.artifacts(runId),
        model.files(runId),
        `${what}: run ${JSON.stringify(runId)}`,
      );
    }
  };
  await expectAll(store, "lookalike ids and paths");
  await store.clear("Run");
  model.clear("Run");
  await store.remove("run", "run ");
  model.remove("run", "run ");
  await expectAll(store, "after clearing one lookalike run and removing one lookalike path");
  if (hooks.reopen) await expectAll(await reopen(), "lookalikes after a reopen");
}

/** A second handle opened alongside the first reads everything, at scale, bounds included. */
async function peerReadsEverything({ open, another, options }: RunStoreContext) {
  const scale = options.scale ?? DEFAULT_SCALE;
  const store = await open({ maxRuns: 3, maxArtifactsPerRun: scale });
  const model = new RunStoreModel(store.bounds());
  const files = bigRun(scale);
  for (const file of files) {
    await registerCopy(store, "big", file.stepId, file.path, file.content);
    model.register("big", file);
  }
  await store.register("two", "s", "a", "two");
  await store.register("three", "s", "a", "three");
  await store.register("three", "s2", "a", "three again");
  const peer = await another("peer");
  if (!peer) return skip("the subject gives no peer: the store is one handle on its storage");
  expectSnapshot(await peer.artifacts("big"), files, "the peer: the run of many files");
  expectContent(await peer.find("three", "a"), "three again", "the peer: an upserted file");
  await expectArtifactError(
    () => peer.register("four", "s", "a", "x"),
    "quota_exceeded",
    "the peer: a run past maxRuns the first handle filled",
  );
  // The first handle is unharmed by the second's loading.
  await store.register("two", "s", "b", "more");
  expectEqual(
    (await store.artifacts("two")).map((e) => e.path),
    ["a", "b"],
    "the first handle after the peer opened",
  );
}

/** Stores on one storage under different namespaces share nothing: files, clears or bounds. */
async function siblingsAreIsolated({ open, another, reopen, hooks }: RunStoreContext) {
  const store = await open({ maxRuns: 2 });
  const sibling = await another("sibling");
  if (!sibling) return skip("the subject gives no sibling: the store's storage is its own");
  await store.register("r1", "mine", "a", "mine");
  await store.register("r2", "mine", "a", "mine 2");
  await sibling.register("r1", "theirs", "a", "theirs");
  await sibling.register("r1", "theirs", "b", "theirs b");
  expectContent(await store.find("r1", "a"), "mine", "a file another namespace wrote over");
  expectEqual(
    (await store.artifacts("r1")).map((e) => [e.path, e.stepId]),
    [["a", "mine"]],
    "run r1 of this store",
  );
  await sibling.clear("r1");
  await sibling.register("r3", "theirs", "a", "x");
  await sibling.register("r4", "theirs", "a", "y");
  expectEqual(
    (await store.artifacts("r1")).length,
    1,
    "this store's run after the sibling cleared its own",
  );
  await expectArtifactError(
    () => store.register("r3", "s", "a", "x"),
    "quota_exceeded",
    "maxRuns of this store, full of its own runs",
  );
  await store.clear("r2");
  await store.register("r5", "mine", "a", "mine 5");
  expectEqual(
    (await sibling.artifacts("r4")).map((e) => e.path),
    ["a"],
    "the sibling's own run",
  );
  if ((await sibling.find("r5", "a")) !== undefined) fail("the sibling sees this store's new run");
  // A reopen may close the storage the sibling shares: the sibling is done by now.
  if (hooks.reopen) {
    const reopened = await reopen();
    expectEqual((await reopened.artifacts("r3")).length, 0, "after a reopen: the sibling's run");
    expectContent(await reopened.find("r1", "a"), "mine", "after a reopen: this store's file");
  }
}

export const SCALE_LAWS: readonly RunStoreLaw[] = Object.freeze([
  check(
    "scale",
    "many runs and a run of many files (`scale`, default 1,030): order, contents and the bounds they fill exactly, before and after a reopen",
    manyRunsAndFiles,
  ),
  check(
    "domain",
    "ids and paths differing only by case, whitespace or normalization, or long in bytes, are distinct",
    lookalikesAreDistinct,
  ),
  check(
    "two handles",
    "a second store opened alongside the first reads everything it wrote, bounds included",
    peerReadsEverything,
  ),
  check(
    "isolation",
    "stores under other namespaces on one storage share no file, clear or bound",
    siblingsAreIsolated,
  ),
] as RunStoreLaw[]);
