import { parseArgs } from "node:util";
import { FsArtifactService, type FsDurability } from "@artifact-kit/fs";
import { FileArtifactService, LogLevel, setLogLevel } from "@google/adk";
import { AdkStore } from "../adk-store.js";
import { positiveInteger } from "../args.js";
import { KitStore } from "../kit-store.js";
import { describeMachine, loadAverage } from "../machine.js";
import { comparePaired, type PairedResult, type PairedSide } from "../paired.js";
import { ScratchSpace } from "../scratch.js";
import type { StoreUnderTest } from "../store.js";
import { KiB, MiB, payload } from "../workloads.js";
import { CacacheStore } from "./cacache-store.js";
import { DurableFileFloor } from "./floor.js";

// Issue 35's targets as paired ratios (see paired.ts): each pair times the baseline and the
// subject back to back, so the load of a shared machine lands on both. Durable puts and gets
// are compared with the floor (what any durable store pays), puts under "process" durability
// with the two no-fsync peers; an A/A control (the floor against itself) shows the spread.

const { values } = parseArgs({
  options: {
    pairs: { type: "string", default: "60" },
    batch: { type: "string", default: "8" },
    // Runs only the cases whose label contains this text (e.g. "get 1 MiB"); all by default.
    only: { type: "string" },
  },
});
const pairs = positiveInteger(values.pairs, "--pairs");
const batch = positiveInteger(values.batch, "--batch");

/** Versions of one name before a store is emptied (untimed), below every ceiling. */
const MAX_VERSIONS = 1_000;
/** Bytes one store holds before it is emptied (untimed). */
const MAX_BYTES = 256 * MiB;

setLogLevel(LogLevel.ERROR);

const ours = (durability: FsDurability) => (scratch: ScratchSpace) =>
  new KitStore(() => FsArtifactService.open({ root: scratch.fresh("ours"), durability }));

const stores = {
  floor: (scratch: ScratchSpace) => new DurableFileFloor(scratch),
  durable: ours("durable"),
  process: ours("process"),
  adk: (scratch: ScratchSpace) =>
    new AdkStore(() => new FileArtifactService(scratch.fresh("adk")), { bytesInOut: false }),
  cacache: (scratch: ScratchSpace) => new CacacheStore(scratch),
};
type StoreId = keyof typeof stores;

/** A store on scratch space of its own (the A/A control runs two of one kind). */
function openStore(id: StoreId): StoreUnderTest {
  const scratch = new ScratchSpace();
  const store = stores[id](scratch);
  return {
    put: (name, bytes) => store.put(name, bytes),
    getLatest: (name) => store.getLatest(name),
    listVersions: (name) => store.listVersions(name),
    reset: () => store.reset(),
    close: async () => {
      await store.close();
      scratch.close();
    },
  };
}

/** Puts of `bytes` as new versions of one name; the store is emptied before it fills. */
function putSide(store: StoreUnderTest, bytes: Uint8Array): PairedSide {
  let versions = 0;
  return {
    before: async () => {
      const next = versions + batch;
      if (next <= MAX_VERSIONS && next * bytes.byteLength <= MAX_BYTES) return;
      await store.reset();
      versions = 0;
    },
    run: () => {
      versions += 1;
      return store.put("report.bin", bytes);
    },
  };
}

/** Gets of the latest version of a name holding two versions of `bytes`. */
function getSide(store: StoreUnderTest, bytes: Uint8Array): PairedSide {
  let filled = false;
  return {
    before: async () => {
      if (filled) return;
      for (let i = 0; i < 2; i += 1) await store.put("report.bin", bytes);
      filled = true;
    },
    run: () => store.getLatest("report.bin"),
  };
}

interface Case {
  readonly label: string;
  readonly baseline: StoreId;
  readonly subject: StoreId;
  readonly operation: "put" | "get";
  readonly size: number;
  /** The bound on subject/baseline time (at most) or rate (at least). */
  readonly target?: { readonly on: "time" | "rate"; readonly bound: number };
}

const CASES: readonly Case[] = [
  {
    label: "durable put 4 KiB: ours vs floor",
    baseline: "floor",
    subject: "durable",
    operation: "put",
    size: 4 * KiB,
    target: { on: "time", bound: 1.3 },
  },
  {
    label: "durable put 1 MiB: ours vs floor",
    baseline: "floor",
    subject: "durable",
    operation: "put",
    size: MiB,
    target: { on: "time", bound: 1.5 },
  },
  {
    label: "get 1 MiB: ours vs floor",
    baseline: "floor",
    subject: "durable",
    operation: "get",
    size: MiB,
    target: { on: "rate", bound: 0.9 },
  },
  {
    label: 'put 4 KiB: ours "process" vs ADK FileArtifactService',
    baseline: "adk",
    subject: "process",
    operation: "put",
    size: 4 * KiB,
    target: { on: "rate", bound: 1.2 },
  },
  {
    label: 'put 4 KiB: ours "process" vs cacache',
    baseline: "cacache",
    subject: "process",
    operation: "put",
    size: 4 * KiB,
    target: { on: "rate", bound: 1.2 },
  },
  {
    label: 'put 1 MiB: ours "process" vs ADK FileArtifactService',
    baseline: "adk",
    subject: "process",
    operation: "put",
    size: MiB,
    target: { on: "rate", bound: 1.2 },
  },
  {
    label: 'put 1 MiB: ours "process" vs cacache',
    baseline: "cacache",
    subject: "process",
    operation: "put",
    size: MiB,
    target: { on: "rate", bound: 1.2 },
  },
  {
    label: "durable put 4 KiB: floor vs floor (A/A control)",
    baseline: "floor",
    subject: "floor",
    operation: "put",
    size: 4 * KiB,
  },
];

function formatRow(entry: Case, result: PairedResult): string {
  const [low, high] = result.ratioInterval;
  const ratio = result.medianRatio;
  let verdict = "";
  if (entry.target) {
    const { on, bound } = entry.target;
    const measured = on === "time" ? ratio : 1 / ratio;
    const holds = on === "time" ? measured <= bound : measured >= bound;
    const claim = on === "time" ? `time <= ${bound}x` : `rate >= ${bound}x`;
    verdict = `${on} ${measured.toFixed(2)}x (${claim}): ${holds ? "PASS" : "MISS"}`;
  }
  return [
    `| ${entry.label}`,
    `${(result.baselineMicros / 1000).toFixed(3)} ms`,
    `${(result.subjectMicros / 1000).toFixed(3)} ms`,
    `${ratio.toFixed(3)}x (95% CI ${low.toFixed(3)}–${high.toFixed(3)})`,
    `${result.ratioP10.toFixed(2)}–${result.ratioP90.toFixed(2)}`,
    `${result.medianCpuRatio.toFixed(2)}x`,
    `${verdict} |`,
  ].join(" | ");
}

async function runCase(entry: Case): Promise<string> {
  const baseline = openStore(entry.baseline);
  const subject = openStore(entry.subject);
  const bytes = payload(entry.size);
  const side = entry.operation === "put" ? putSide : getSide;
  try {
    const result = await comparePaired(side(baseline, bytes), side(subject, bytes), {
      pairs,
      batch,
      warmupPairs: 3,
    });
    return formatRow(entry, result);
  } finally {
    await Promise.all([baseline.close(), subject.close()]);
  }
}

console.log(describeMachine());
const onlyArg = values.only === undefined ? "" : ` --only "${values.only}"`;
console.log(`command: node dist/fs/paired.js --pairs ${pairs} --batch ${batch}${onlyArg}`);
const before = loadAverage();
const rows: string[] = [];
const only = values.only;
const chosen = only === undefined ? CASES : CASES.filter((entry) => entry.label.includes(only));
if (chosen.length === 0) throw new Error(`--only "${only}" matches no case`);
for (const entry of chosen) rows.push(await runCase(entry));
console.log(`load average ${before} before, ${loadAverage()} after`);
console.log(
  [
    "",
    "| case | baseline | subject | median per-pair time ratio subject/baseline | p10–p90 of pairs | CPU per operation subject/baseline (median of pairs) | target (issue 35) |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n"),
);
