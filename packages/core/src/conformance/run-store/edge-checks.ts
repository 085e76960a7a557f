import { isArtifactError } from "../../errors.js";
import type { RunContent, RunStore } from "../../run-store.js";
import { check } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { seededBytes } from "../payload.js";
import { registerCopy } from "./commands.js";
import type { RunStoreContext, RunStoreLaw } from "./context.js";
import { type ModelFile, RunStoreModel, sizeOf } from "./model.js";
import { expectContent, expectSnapshot } from "./observe.js";

// The edges a run store's generators never reach: text that decoders treat specially, ids and
// paths at their byte limits, contents of megabytes, registration order across many reloads,
// and readers running beside a write.

const file = (path: string, stepId: string, content: RunContent): ModelFile => ({
  path,
  stepId,
  content,
  size: sizeOf(content),
});

/** Text a decoder, a transport or a database may change: each must come back as it went. */
const SPECIAL_TEXTS: readonly string[] = [
  "\ufeff",
  "\ufefflead",
  "\ufeff\ufeff",
  "\0",
  "a\0b\0",
  "\r\n",
  "line\rbreak\n",
  "\u2028\u2029",
  "\ufffd",
  "\ufffe\uffff",
  "\u{10ffff}\u{1f600}",
  "e\u0301",
  " ",
  "\u00a0",
  "\\u0000",
  '{"a":1}',
];

async function specialTextsRoundTrip({ open, reopen, hooks }: RunStoreContext) {
  const store = await open({});
  const files = SPECIAL_TEXTS.map((text, i) => file(`text-${i}`, "s", text));
  for (const f of files) await registerCopy(store, "texts", f.stepId, f.path, f.content);
  const expectAll = async (reader: RunStore, what: string) => {
    for (const f of files)
      expectContent(await reader.find("texts", f.path), f.content, `${what}: find ${f.path}`);
    expectSnapshot(await reader.artifacts("texts"), files, `${what}: artifacts`);
  };
  await expectAll(store, "special text");
  if (hooks.reopen) await expectAll(await reopen(), "special text after a reopen");
}

/** `unit` repeated, then ASCII, to exactly `bytes` UTF-8 bytes. */
function ofBytes(unit: string, bytes: number): string {
  const width = Buffer.byteLength(unit);
  return unit.repeat(Math.floor(bytes / width)) + "a".repeat(bytes % width);
}
/** Exactly `bytes` bytes in segments of 64 (a disk may bound a segment, the contract does not). */
function pathOfBytes(unit: string, bytes: number): string {
  const segments: string[] = [];
  let left = bytes;
  for (; left > 64; left -= 64) segments.push(ofBytes(unit, 63));
  segments.push(ofBytes(unit, left));
  return segments.join("/");
}
/** One character of each UTF-8 width. */
const WIDTHS = ["a", "\u00e9", "\u20ac", "\u{1f600}"];
const MAX_ID_BYTES = 256;
const MAX_PATH_BYTES = 1024;

async function limitsAreBytes({ open, reopen, hooks }: RunStoreContext) {
  const store = await open({});
  const model = new RunStoreModel(store.bounds());
  for (const [w, unit] of WIDTHS.entries()) {
    const id = ofBytes(unit, MAX_ID_BYTES);
    const path = pathOfBytes(unit, MAX_PATH_BYTES);
    expectEqual(
      [Buffer.byteLength(id), Buffer.byteLength(path)],
      [MAX_ID_BYTES, MAX_PATH_BYTES],
      "the kit's own sizes",
    );
    for (const [runId, stepId, p] of [
      [id, "s", `at-limit-${w}`],
      [`run-${w}`, id, `step-${w}`],
      [`run-${w}`, "s", path],
    ] as const) {
      const f = file(p, stepId, `${w}`);
      await store.register(runId, stepId, p, f.content);
      model.register(runId, f);
    }
    const over = `${id}a`;
    const longPath = `${path}a`;
    const calls: Array<[string, string, () => Promise<unknown>]> = [
      ["a run id", "runId", () => store.register(over, "s", "p", "x")],
      ["a step id", "stepId", () => store.register(`run-${w}`, over, "p", "x")],
      ["a path", "path", () => store.register(`run-${w}`, "s", longPath, "x")],
      ["find's path", "path", () => store.find(`run-${w}`, longPath)],
    ];
    for (const [label, field, call] of calls) {
      const what = `${label} one byte over its limit, in characters of ${Buffer.byteLength(unit)} bytes`;
      const error = await expectArtifactError(call, "invalid_argument", what);
      expectEqual(isArtifactError(error) && error.detail.field, field, `${what}: detail.field`);
    }
  }
  const expectAll = async (reader: RunStore, what: string) => {
    for (const [w, unit] of WIDTHS.entries()) {
      for (const runId of [ofBytes(unit, MAX_ID_BYTES), `run-${w}`]) {
        expectSnapshot(
          await reader.artifacts(runId),
          model.files(runId),
          `${what}: run of width ${w}`,
        );
      }
    }
  };
  await expectAll(store, "ids and paths at their byte limits");
  if (hooks.reopen) await expectAll(await reopen(), "at the limits, after a reopen");
}

const MiB = 1024 * 1024;

async function largeContentsRoundTrip({ open, reopen, hooks }: RunStoreContext) {
  const limit = 3 * MiB + 5;
  const store = await open({ maxBytesPerArtifact: limit });
  const files = [
    file("one-mib-and-one", "s", seededBytes(MiB + 1, 3)),
    file("at-the-limit", "s", seededBytes(limit, 5)),
    file("text", "s", "\u20ac".repeat(MiB / 2 + 1)),
  ];
  for (const f of files) await registerCopy(store, "large", f.stepId, f.path, f.content);
  const error = await expectArtifactError(
    () => store.register("large", "s", "over", new Uint8Array(limit + 1)),
    "quota_exceeded",
    "a file one byte past maxBytesPerArtifact",
  );
  expectTrue(isArtifactError(error), "quota_exceeded");
  const expectAll = async (reader: RunStore, what: string) => {
    for (const f of files)
      expectContent(await reader.find("large", f.path), f.content, `${what}: ${f.path}`);
    expectSnapshot(await reader.artifacts("large"), files, `${what}: artifacts`);
  };
  await expectAll(store, "contents of megabytes");
  if (hooks.reopen) await expectAll(await reopen(), "contents of megabytes after a reopen");
}

/**
 * Registers, upserts, removes and clears with reopens between them: each new path goes
 * last, an upsert keeps its place, whatever was removed or reloaded before. Paths are named
 * against their order, so a store that orders by name or reuses an order shows it.
 */
async function orderSurvivesEveryReopen(context: RunStoreContext) {
  // A reopen after every second step, from the first and from the second: every step is
  // followed by a reopen in one pass, and every two adjacent steps run without one between
  // in the other, so what a store keeps in memory between reloads (its next order, say) is
  // used as well as what it reloads.
  for (const offset of [0, 1]) await orderAcrossReopens(context, 2, offset);
}

async function orderAcrossReopens(
  { open, reopen }: RunStoreContext,
  every: number,
  offset: number,
) {
  let store = await open({});
  const model = new RunStoreModel(store.bounds());
  const steps: Array<["register", string, string] | ["remove", string] | ["clear"]> = [
    ["register", "m", "1"],
    ["register", "k", "1"],
    ["register", "z", "1"],
    ["remove", "m"],
    ["register", "a", "1"],
    ["register", "k", "2"],
    ["register", "b", "1"],
    ["remove", "z"],
    ["remove", "k"],
    ["register", "c", "1"],
    ["register", "m", "2"],
    ["register", "a", "3"],
    ["clear"],
    ["register", "y", "1"],
    ["register", "x", "1"],
    ["remove", "y"],
    ["register", "w", "1"],
    ["register", "y", "2"],
  ];
  for (const [i, step] of steps.entries()) {
    if (step[0] === "register") {
      const f = file(step[1], `s${i}`, `${step[1]}${step[2]}`);
      await store.register("order", f.stepId, f.path, f.content);
      model.register("order", f);
    } else if (step[0] === "remove") {
      await store.remove("order", step[1]);
      model.remove("order", step[1]);
    } else {
      await store.clear("order");
      model.clear("order");
    }
    if ((i + offset) % every !== every - 1) continue;
    store = await reopen();
    expectSnapshot(
      await store.artifacts("order"),
      model.files("order"),
      `after step ${i} (${step.join(" ")}), reopened every ${every} steps from step ${(every - 1 - offset + every) % every}`,
    );
  }
}

/** One write, and what a reader beside it may see: the state before or after, nothing else. */
interface Overlap {
  name: string;
  setup: (store: RunStore, run: string) => Promise<void>;
  write: (store: RunStore, run: string) => Promise<void>;
}

const OVERLAPS: readonly Overlap[] = [
  {
    name: "an upsert",
    setup: async (s, run) => {
      await s.register(run, "s", "a", "old");
      await s.register(run, "s", "b", "kept");
    },
    write: (s, run) => s.register(run, "s2", "a", "new content"),
  },
  {
    name: "a clear",
    setup: async (s, run) => {
      for (const path of ["a", "b", "c", "d"]) await s.register(run, "s", path, path);
    },
    write: (s, run) => s.clear(run),
  },
  {
    name: "a remove",
    setup: async (s, run) => {
      for (const path of ["a", "b", "c"]) await s.register(run, "s", path, path);
    },
    write: (s, run) => s.remove(run, "b"),
  },
  {
    name: "a new file",
    setup: async (s, run) => s.register(run, "s", "a", "a"),
    write: (s, run) => s.register(run, "s", "b", "b"),
  },
];

type View = [path: string, stepId: string, content: string][];
const viewOf = (entries: Awaited<ReturnType<RunStore["artifacts"]>>): View =>
  entries.map((e) => [e.path, e.stepId, typeof e.content === "string" ? e.content : "bytes"]);

async function readersSeeBeforeOrAfter({ open }: RunStoreContext) {
  // One store, a run per case: a store per case costs seconds on a disk.
  const store = await open({});
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  for (const overlap of OVERLAPS) {
    // The readers start with the write, and again after each of its first 3 turns.
    for (let delay = 0; delay <= 3; delay++) {
      const run = `${overlap.name} ${delay}`;
      await overlap.setup(store, run);
      const before = viewOf(await store.artifacts(run));
      const writing = overlap.write(store, run);
      for (let t = 0; t < delay; t++) await turn();
      const seen = await Promise.all([store.artifacts(run).then(viewOf), store.find(run, "a")]);
      await writing;
      const after = viewOf(await store.artifacts(run));
      const what = `${overlap.name}, read ${delay} turns after it began`;
      const [view, found] = seen;
      const same = (a: View, b: View) => JSON.stringify(a) === JSON.stringify(b);
      if (!same(view, before) && !same(view, after)) {
        fail(
          `${what}: artifacts saw ${JSON.stringify(view)}, neither ${JSON.stringify(before)} nor ${JSON.stringify(after)}`,
        );
      }
      const foundBefore = before.find(([path]) => path === "a")?.[2];
      const foundAfter = after.find(([path]) => path === "a")?.[2];
      expectTrue(
        found === foundBefore || found === foundAfter,
        `${what}: find("a") saw ${JSON.stringify(found)}, neither ${JSON.stringify(foundBefore)} nor ${JSON.stringify(foundAfter)}`,
      );
    }
  }
}

export const EDGE_LAWS: readonly RunStoreLaw[] = Object.freeze([
  check(
    "domain",
    "text decoders treat specially (byte order marks, NUL, line ends, noncharacters) round-trips exactly, before and after a reopen",
    specialTextsRoundTrip,
  ),
  check(
    "domain",
    "ids of 256 and paths of 1,024 UTF-8 bytes in every character width are accepted, one byte more is invalid_argument",
    limitsAreBytes,
  ),
  check(
    "content",
    "contents of megabytes, at maxBytesPerArtifact exactly, round-trip byte for byte",
    largeContentsRoundTrip,
  ),
  check(
    "durability",
    "registration order survives reopens after any register, upsert, remove and clear, and after any two",
    orderSurvivesEveryReopen,
    { needs: ["reopen"] },
  ),
  check(
    "observers",
    "readers beside an upsert, remove, clear or new file see the run before or after it, never between",
    readersSeeBeforeOrAfter,
  ),
] as RunStoreLaw[]);
