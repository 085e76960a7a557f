import { createHash } from "node:crypto";
import { appendFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EffectRecord, FsEffectJournal } from "@artifact-kit/effects";
import { afterEach, expect, it } from "vitest";

// The fs journal's log on disk (fs-log/): what a torn append, a dead roller, a process that
// lags behind two rolls and a journal of the layout before the log leave, made by hand.

const roots: string[] = [];
const journals: FsEffectJournal[] = [];
afterEach(async () => {
  await Promise.all(journals.splice(0).map((journal) => journal.close()));
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

async function newRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "effects-log-"));
  roots.push(root);
  return root;
}

function openJournal(root: string): FsEffectJournal {
  const journal = new FsEffectJournal({ root });
  journals.push(journal);
  return journal;
}

const scope = { kind: "app", app: "a" } as const;
const lease = { owner: "w", leaseMs: 60_000 };
const receipt = { version: 1, sha256: "a".repeat(64), size: 1 };
const intentOf = (effectId: string) => ({
  effectId,
  operation: "put" as const,
  scope,
  name: "n",
  requestDigest: "0".repeat(64),
});

/** A frame as the log writes it (frames.ts): magic, length, digest, JSON. */
function frame(body: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(body));
  const header = Buffer.alloc(16);
  Buffer.from([0xff, 0x00, 0x4a, 0x31]).copy(header);
  header.writeUInt32LE(payload.byteLength, 4);
  createHash("sha256").update(payload).digest().copy(header, 8, 0, 8);
  return Buffer.concat([header, payload]);
}

const segment = (root: string, n: number) =>
  join(root, "log", `${String(n).padStart(10, "0")}.log`);
const segments = async (root: string) => (await readdir(join(root, "log"))).sort();

it("skips a torn append and unwritten blocks, and reads every whole change after them", async () => {
  const root = await newRoot();
  const journal = openJournal(root);
  const first = await journal.intend(intentOf("before"), lease);
  const torn = frame({ change: { kind: "create", record: { ...first, effectId: "torn" } } });
  // A writer killed mid-append leaves part of a frame; a power loss, blocks of zeros (here
  // more than a reader's window at once).
  await appendFile(segment(root, 1), torn.subarray(0, torn.byteLength - 5));
  await appendFile(segment(root, 1), Buffer.alloc(200 * 1024));
  await journal.intend(intentOf("after"), lease);
  expect(await journal.markApplied("before", 1, receipt)).toMatchObject({ phase: "applied" });

  const reopened = openJournal(root);
  expect((await reopened.list()).map((record) => record.effectId).sort()).toEqual([
    "after",
    "before",
  ]);
  expect(await reopened.get("torn")).toBeUndefined();
  expect(await reopened.get("before")).toMatchObject({ phase: "applied", receipt });
  // The torn id was never recorded: it can be intended.
  await reopened.intend(intentOf("torn"), lease);
  expect(await journal.get("torn")).toMatchObject({ phase: "intended" });
});

it("a seal whose roller died before the next segment: the next reader writes it", async () => {
  const root = await newRoot();
  const journal = openJournal(root);
  await journal.intend(intentOf("kept"), lease);
  await journal.markApplied("kept", 1, receipt);
  await appendFile(segment(root, 1), frame({ change: { kind: "seal" } }));

  const peer = openJournal(root);
  expect(await peer.get("kept")).toMatchObject({ phase: "applied", receipt });
  expect(await segments(root)).toEqual(["0000000002.log"]);
  // The first handle's next change lands after the seal: it is made again in segment 2.
  await journal.settle("kept", 1, "committed");
  expect(await peer.get("kept")).toMatchObject({ phase: "committed" });
  expect(await segments(root)).toEqual(["0000000002.log"]);
});

it("a process that lagged behind two rolls writes into the newest segment", async () => {
  const root = await newRoot();
  const lagging = openJournal(root);
  await lagging.intend(intentOf("old"), lease);
  const peer = openJournal(root);
  for (const n of [1, 2]) {
    await appendFile(segment(root, n), frame({ change: { kind: "seal" } }));
    await peer.list(); // reads the seal, writes segment n + 1, removes segment n
  }
  expect(await segments(root)).toEqual(["0000000003.log"]);
  await lagging.intend(intentOf("late"), lease);
  await lagging.markApplied("old", 1, receipt);
  expect(await segments(root)).toEqual(["0000000003.log"]);
  expect(await peer.get("late")).toMatchObject({ phase: "intended" });
  expect(await peer.get("old")).toMatchObject({ phase: "applied" });
  expect((await openJournal(root).list()).length).toBe(2);
});

it("prune compacts a log that is mostly history, and the state survives the roll", async () => {
  const root = await newRoot();
  const journal = openJournal(root);
  const peer = openJournal(root);
  const settled = 1400;
  for (let i = 0; i < settled; i++) {
    const effectId = `e${i}`;
    await journal.intend(intentOf(effectId), lease);
    await journal.markApplied(effectId, 1, receipt);
    await journal.settle(effectId, 1, "committed");
  }
  const open = await journal.intend(intentOf("open"), lease);
  expect(await segments(root)).toEqual(["0000000001.log"]);
  const prune = { olderThan: Date.now() + 1, limit: 1000 };
  expect(await peer.prune(prune)).toEqual({ pruned: 1000 });
  // 4,200 changes and 1,000 removals for 401 effects: the next segment starts from those.
  expect(await segments(root)).toEqual(["0000000002.log"]);
  expect(await journal.prune(prune)).toEqual({ pruned: settled - 1000 });
  expect(await segments(root)).toEqual(["0000000002.log"]);
  expect(await journal.list()).toEqual([open]);
  expect(await openJournal(root).list()).toEqual([open]);
  expect(await journal.markApplied("open", 1, receipt)).toMatchObject({ phase: "applied" });
  expect(await peer.get("open")).toMatchObject({ phase: "applied" });
});

/** Writes effects as the layout before the log kept them: a directory of numbered revisions. */
function oldLayout(root: string) {
  const record = (effectId: string, phase: string, extra = {}) =>
    JSON.stringify({
      ...intentOf(effectId),
      phase,
      lease: { owner: "w", expiresAt: Date.now() + 60_000, fencingToken: 1 },
      attempts: 0,
      createdAt: 1,
      updatedAt: 1,
      ...extra,
    });
  const old = async (effectId: string, revisions: string[]) => {
    await mkdir(join(root, "effects", effectId), { recursive: true });
    for (const [i, text] of revisions.entries()) {
      const name = `${String(i + 1).padStart(10, "0")}.json`;
      await writeFile(join(root, "effects", effectId, name), text);
    }
  };
  return { record, old };
}

it("carries a journal of the layout before the log, torn newest revisions included", async () => {
  const root = await newRoot();
  const { record, old } = oldLayout(root);
  await old("applied", [record("applied", "intended"), record("applied", "applied", { receipt })]);
  await old("torn-newest", [record("torn-newest", "intended"), '{"effectId":"to']);
  await old("only-torn", [""]);
  await mkdir(join(root, "tmp"), { recursive: true });
  await writeFile(join(root, "tmp", "staged.json"), "{");

  const journal = openJournal(root);
  const peer = openJournal(root);
  expect((await journal.list()).map((r: EffectRecord) => r.effectId).sort()).toEqual([
    "applied",
    "torn-newest",
  ]);
  expect(await peer.get("applied")).toMatchObject({ phase: "applied", receipt });
  expect(await peer.get("torn-newest")).toMatchObject({ phase: "intended" });
  // Changes go on from the carried revisions, through either handle.
  expect(await peer.settle("applied", 1, "committed")).toMatchObject({ phase: "committed" });
  expect(await journal.markApplied("torn-newest", 1, receipt)).toMatchObject({ phase: "applied" });
  expect(await readdir(root)).toEqual(["log"]);
  expect(await openJournal(root).get("torn-newest")).toMatchObject({ phase: "applied" });
});

// Processes opening an old journal at once all carry what they find; one that read an effect
// before another process changed or pruned it carries a stale copy, which must change nothing.
it("a late carry neither undoes a change nor brings back a pruned effect", async () => {
  const root = await newRoot();
  const { record, old } = oldLayout(root);
  const stale = async () => {
    await old("changed", [record("changed", "intended")]);
    await old("pruned", [record("pruned", "committed")]);
  };
  await stale();
  const journal = openJournal(root);
  await journal.markApplied("changed", 1, receipt);
  expect(await journal.prune({ olderThan: Date.now() + 1, limit: 10 })).toEqual({ pruned: 1 });
  await stale(); // what a slower process still carries
  const late = openJournal(root);
  expect(await late.list()).toEqual([expect.objectContaining({ effectId: "changed" })]);
  expect(await journal.get("changed")).toMatchObject({ phase: "applied", receipt });
  expect(await journal.get("pruned")).toBeUndefined();
});

it("a closed journal leaves its log and nothing else", async () => {
  const root = await newRoot();
  const journal = new FsEffectJournal({ root });
  await journal.intend(intentOf("x"), lease);
  await journal.close();
  expect(await readdir(root)).toEqual(["log"]);
  expect(await segments(root)).toEqual(["0000000001.log"]);
});
