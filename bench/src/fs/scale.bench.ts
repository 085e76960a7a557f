import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Scope } from "@artifact-kit/core";
import { FsArtifactService } from "@artifact-kit/fs";
import { positiveInteger } from "../args.js";
import { describeMachine, loadAverage } from "../machine.js";
import { ScratchSpace } from "../scratch.js";

// Issue 17: does an fs operation's cost grow with the store? Each operation is timed on
// stores of several sizes (names in a scope; versions of one name), in turns (every size once
// per round), and its median at the largest size is compared with the smallest: the target is
// at most 2x for names (issue 17), 1.5x for versions (issue 35). Stores are filled untimed,
// with concurrent puts. The "while another process puts" rows time the same calls while a
// second process (scale-writer.ts) keeps putting new versions of the name being read.
//
//   node dist/fs/scale.bench.js [--names 100,1000,10000] [--versions 100,1000,10000] [--rounds 5]

const { values } = parseArgs({
  options: {
    names: { type: "string", default: "100,1000,10000" },
    versions: { type: "string", default: "100,1000,10000" },
    rounds: { type: "string", default: "5" },
    calls: { type: "string", default: "20" },
  },
});
const sizes = (text: string, flag: string) =>
  text.split(",").map((part) => positiveInteger(part.trim(), flag));
const NAME_SIZES = sizes(values.names, "--names");
const VERSION_SIZES = sizes(values.versions, "--versions");
const ROUNDS = positiveInteger(values.rounds, "--rounds");
const CALLS = positiveInteger(values.calls, "--calls");
/** Most growth allowed: issue 17's 2x for names, issue 35's 1.5x for versions of one name. */
const TARGET_GROWTH = { names: 2, versions: 1.5 } as const;
const PAGE = 100;
const FILL_CONCURRENCY = 16;

const SCOPE: Scope = { kind: "app", app: "scale" };
const payload = new Uint8Array(64).fill(7);
const scratch = new ScratchSpace();

/** Versions the writer process may add to a store over the whole run. */
const WRITER_ROOM = 5_000;
/** Room for `versions` versions of a name, and the writer's (the default is 10,000). */
const versionsCeilingFor = (versions: number) => Math.max(10_000, versions) + WRITER_ROOM;
/** Room for `names` names and the new names the rounds put (the default is 100,000). */
const namesCeilingFor = (names: number) => Math.max(100_000, names + 10_000);

async function fill(count: number, put: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await put(next++);
  };
  await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
}

interface Store {
  readonly label: string;
  readonly size: number;
  readonly root: string;
  readonly maxVersionsPerName: number;
  readonly maxNamesPerScope: number;
  /** A long-lived instance: the warm path. */
  readonly service: FsArtifactService;
}

async function namesStore(size: number): Promise<Store> {
  const root = scratch.fresh(`names-${size}`);
  const maxVersionsPerName = versionsCeilingFor(1);
  const maxNamesPerScope = namesCeilingFor(size);
  const service = await FsArtifactService.open({ root, maxVersionsPerName, maxNamesPerScope });
  await fill(size, (i) => service.put(SCOPE, `name-${String(i).padStart(7, "0")}`, payload));
  return { label: `${size} names`, size, root, maxVersionsPerName, maxNamesPerScope, service };
}

async function versionsStore(size: number): Promise<Store> {
  const root = scratch.fresh(`versions-${size}`);
  const maxVersionsPerName = versionsCeilingFor(size);
  const maxNamesPerScope = namesCeilingFor(1);
  const service = await FsArtifactService.open({ root, maxVersionsPerName, maxNamesPerScope });
  await fill(size, () => service.put(SCOPE, "one", payload));
  return { label: `${size} versions`, size, root, maxVersionsPerName, maxNamesPerScope, service };
}

/** Milliseconds one call takes. */
async function time(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

/** The median of `CALLS` calls, after one untimed warm-up call. */
async function warm(call: () => Promise<unknown>): Promise<number> {
  await call();
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) samples.push(await time(call));
  return median(samples);
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const WRITER = fileURLToPath(new URL("./scale-writer.js", import.meta.url));

/** `sample` timed while another process keeps putting new versions of "one" into `store`. */
async function whileWriting(store: Store, sample: () => Promise<number>): Promise<number> {
  const { root, maxVersionsPerName, maxNamesPerScope } = store;
  const writer = fork(WRITER, [
    root,
    String(maxVersionsPerName),
    String(maxNamesPerScope),
    JSON.stringify(SCOPE),
    "one",
  ]);
  const exited = once(writer, "exit");
  let sampled: number;
  try {
    const [first] = await Promise.race([once(writer, "message"), exited]);
    if (first !== "writing") throw new Error(`the writer did not start: ${String(first)}`);
    sampled = await sample();
  } catch (error) {
    writer.kill();
    await exited;
    throw error;
  }
  if (writer.connected) writer.send("stop");
  const [code] = await exited;
  if (code !== 0) throw new Error(`the writer exited with ${String(code)}`);
  return sampled;
}

interface Operation {
  readonly label: string;
  readonly stores: "names" | "versions";
  /** One sample (ms) on a store. */
  readonly sample: (store: Store, round: number) => Promise<number>;
  /**
   * The smallest store on which the operation does its whole work (a page of 100 versions
   * needs 100 of them): growth is taken from the first store at least this large, since a
   * page of one version against a page of 100 would measure the page, not the store.
   */
  readonly fullFrom?: number;
}

let fresh = 0;
const OPERATIONS: readonly Operation[] = [
  {
    label: `listNames page of ${PAGE}, first call after open (cold)`,
    stores: "names",
    sample: async ({ root, maxVersionsPerName, maxNamesPerScope }) => {
      const service = await FsArtifactService.open({ root, maxVersionsPerName, maxNamesPerScope });
      try {
        return await time(() => service.listNames(SCOPE, { limit: PAGE }));
      } finally {
        await service.close();
      }
    },
  },
  {
    label: `listNames page of ${PAGE} (warm)`,
    stores: "names",
    sample: ({ service }) => warm(() => service.listNames(SCOPE, { limit: PAGE })),
  },
  {
    label: "put of a new name",
    stores: "names",
    sample: ({ service }) =>
      time(() => service.put(SCOPE, `fresh-${String(fresh++).padStart(7, "0")}`, payload)),
  },
  {
    label: "get latest (warm)",
    stores: "versions",
    sample: ({ service }) => warm(() => service.get(SCOPE, "one")),
  },
  {
    label: `listVersions page of ${PAGE} (warm)`,
    stores: "versions",
    sample: ({ service }) => warm(() => service.listVersions(SCOPE, "one", { limit: PAGE })),
    fullFrom: PAGE,
  },
  {
    label: "get latest while another process puts",
    stores: "versions",
    sample: (store) => whileWriting(store, () => warm(() => store.service.get(SCOPE, "one"))),
  },
  {
    label: `listVersions page of ${PAGE} while another process puts`,
    stores: "versions",
    sample: (store) =>
      whileWriting(store, () =>
        warm(() => store.service.listVersions(SCOPE, "one", { limit: PAGE })),
      ),
    fullFrom: PAGE,
  },
];

console.log(describeMachine());
console.log(
  `command: node dist/fs/scale.bench.js --names ${NAME_SIZES} --versions ${VERSION_SIZES} --rounds ${ROUNDS} --calls ${CALLS}`,
);
console.log(`load average before filling: ${loadAverage()}`);
const filled = performance.now();
const stores = {
  names: await Promise.all(NAME_SIZES.map(namesStore)),
  versions: await Promise.all(VERSION_SIZES.map(versionsStore)),
};
console.error(`filled in ${((performance.now() - filled) / 1000).toFixed(0)} s`);

const samples = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const operation of OPERATIONS) {
    for (const store of stores[operation.stores]) {
      const key = `${operation.label}\n${store.size}`;
      samples.set(key, [...(samples.get(key) ?? []), await operation.sample(store, round)]);
    }
  }
  console.error(`round ${round + 1} of ${ROUNDS} done`);
}
console.log(`load average after measuring: ${loadAverage()}\n`);

const header = (kind: "names" | "versions") => stores[kind].map((store) => store.label);
for (const kind of ["names", "versions"] as const) {
  console.log(
    `| operation | ${header(kind).join(" | ")} | growth | target (<= ${TARGET_GROWTH[kind]}x) |`,
  );
  console.log(
    `| --- | ${header(kind)
      .map(() => "---")
      .join(" | ")} | --- | --- |`,
  );
  for (const operation of OPERATIONS.filter((op) => op.stores === kind)) {
    const medians = stores[kind].map((store) =>
      median(samples.get(`${operation.label}\n${store.size}`) ?? []),
    );
    const base = Math.max(
      0,
      stores[kind].findIndex((store) => store.size >= (operation.fullFrom ?? 0)),
    );
    const growth = (medians.at(-1) as number) / (medians[base] as number);
    const verdict = growth <= TARGET_GROWTH[kind] ? "PASS" : "MISS";
    const cells = medians.map((ms) => `${ms.toFixed(2)} ms`).join(" | ");
    const from = base === 0 ? "" : ` (from ${stores[kind][base]?.label})`;
    console.log(`| ${operation.label} | ${cells} | ${growth.toFixed(2)}x${from} | ${verdict} |`);
  }
  console.log("");
}

for (const kind of ["names", "versions"] as const) {
  for (const store of stores[kind]) await store.service.close();
}
scratch.close();
