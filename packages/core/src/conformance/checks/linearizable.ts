import { inspect } from "node:util";
import fc from "fast-check";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { fail } from "../expect.js";
import { withHandles } from "../handles.js";
import { type HistoryEntry, LogicalClock, linearize } from "../linearizability.js";
import {
  describeOp,
  describeOutput,
  expectVersionsFollowRealTime,
  HISTORY_NAMES,
  type HistoryOp,
  type HistoryOutput,
  historySpec,
  runHistoryOp,
} from "../linearizable-ops.js";

// Concurrent histories, checked for linearizability against the reference model's rules:
// two or three clients run up to four operations each (puts, deletes, reads, downloads,
// listings) on two names, each waiting a few event-loop turns before each operation, while
// one or two observers only read and list, up to six times, so that their reads land inside
// the others' writes (at most 27 operations in all, with the one to three puts before). With
// `openAnother`, clients are spread over two instances on one backend.

/** One operation of a client's plan and the event-loop turns it waits before it starts. */
interface Step {
  readonly op: HistoryOp;
  readonly turns: number;
}

interface Client {
  readonly handle: number;
  readonly steps: readonly Step[];
}

interface Plan {
  /** Puts run one after another before the clients start (they are in the history too). */
  readonly setup: readonly HistoryOp[];
  readonly clients: readonly Client[];
}

type Entry = HistoryEntry<HistoryOp, HistoryOutput> & { readonly handle: number };

const nameArb = fc.constantFrom(...HISTORY_NAMES);
const versionArb = fc.integer({ min: 1, max: 5 });

function readArb(download: boolean): fc.Arbitrary<HistoryOp> {
  const reads: fc.Arbitrary<HistoryOp>[] = [
    nameArb.map((name) => ({ kind: "get", name, version: "latest" })),
    fc.tuple(nameArb, versionArb).map(([name, version]) => ({ kind: "get", name, version })),
    nameArb.map((name) => ({ kind: "head", name })),
    nameArb.map((name) => ({ kind: "listVersions", name })),
    nameArb.map((name) => ({ kind: "listVersions", name })),
    fc.constant({ kind: "listNames" }),
    fc.constant({ kind: "list" }),
  ];
  if (download) reads.push(nameArb.map((name) => ({ kind: "download", name })));
  return fc.oneof(...reads);
}

function opArb(download: boolean): fc.Arbitrary<HistoryOp> {
  // No delete("all"): the contract does not make it atomic, and fs, gcs and s3 remove the
  // versions one by one (a concurrent reader sees some gone, two concurrent ones both succeed).
  const selector = fc.oneof(fc.constant<"latest">("latest"), versionArb);
  return fc.oneof(
    { arbitrary: nameArb.map((name): HistoryOp => ({ kind: "put", name, tag: 0 })), weight: 3 },
    {
      arbitrary: fc.tuple(nameArb, selector).map(
        ([name, s]): HistoryOp => ({
          kind: "delete",
          name,
          selector: s,
        }),
      ),
      weight: 2,
    },
    { arbitrary: readArb(download), weight: 3 },
  );
}

/** Every put gets a tag of its own, so each version's payload says which put wrote it. */
function tagPuts(plan: Plan): Plan {
  let tag = 0;
  const tagged = (op: HistoryOp): HistoryOp => (op.kind === "put" ? { ...op, tag: ++tag } : op);
  return {
    setup: plan.setup.map(tagged),
    clients: plan.clients.map((client) => ({
      ...client,
      steps: client.steps.map((step) => ({ ...step, op: tagged(step.op) })),
    })),
  };
}

function planArb(download: boolean): fc.Arbitrary<Plan> {
  const handle = fc.nat(1);
  const writer = fc.record({
    handle,
    steps: fc.array(fc.record({ op: opArb(download), turns: fc.nat(2) }), {
      minLength: 1,
      maxLength: 4,
    }),
  });
  // Observers only read, paced as the writers, in pairs of reads with no turn between the
  // two (a listing and a read, say), so that both land inside one step of a write.
  const observer = fc.record({
    handle,
    steps: fc
      .array(fc.tuple(readArb(download), readArb(download), fc.nat(2)), {
        minLength: 1,
        maxLength: 3,
      })
      .map((pairs) =>
        pairs.flatMap(([first, second, turns]) => [
          { op: first, turns },
          { op: second, turns: 0 },
        ]),
      ),
  });
  const setup = fc.array(
    nameArb.map((name): HistoryOp => ({ kind: "put", name, tag: 0 })),
    { minLength: 1, maxLength: 3 },
  );
  return fc
    .record({
      setup,
      writers: fc.array(writer, { minLength: 2, maxLength: 3 }),
      observers: fc.array(observer, { minLength: 1, maxLength: 2 }),
    })
    .map(({ setup, writers, observers }) =>
      tagPuts({ setup, clients: [...writers, ...observers] }),
    );
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function runPlan(handles: readonly ArtifactService[], scope: Scope, plan: Plan) {
  const service = handles[0] as ArtifactService;
  const { maxPageLimit, legacyListLimit } = service.capabilities().pagination;
  const clock = new LogicalClock();
  const history: Entry[] = [];
  const record = async (client: number, handle: number, op: HistoryOp) => {
    const invokedAt = clock.tick();
    const output = await runHistoryOp(
      handles[handle] as ArtifactService,
      scope,
      op,
      maxPageLimit,
    ).catch((error: unknown) =>
      fail(`client ${client} (handle ${handle}): ${describeOp(op)} failed: ${inspect(error)}`),
    );
    history.push({ client, handle, input: op, output, invokedAt, returnedAt: clock.tick() });
  };
  for (const op of plan.setup) await record(-1, 0, op);
  const clients = plan.clients.map(async (client, c) => {
    const handle = client.handle % handles.length;
    for (const step of client.steps) {
      for (let i = 0; i < step.turns; i++) await turn();
      await record(c, handle, step.op);
    }
  });
  const failed = (await Promise.allSettled(clients)).find((o) => o.status === "rejected");
  if (failed) throw failed.reason;
  const describe = (e: Entry) =>
    `[${e.invokedAt}..${e.returnedAt}] ${e.client < 0 ? "setup" : `client ${e.client}`} (handle ${e.handle}): ${describeOp(e.input)} -> ${describeOutput(e.output)}`;
  expectVersionsFollowRealTime(history, (e) => describe(e as Entry));
  const spec = historySpec({ pageLimit: maxPageLimit, legacyListLimit });
  if (linearize(history.map(withConcurrentPuts), spec) === undefined) {
    const lines = [...history]
      .sort((a, b) => a.invokedAt - b.invokedAt)
      .map((e) => `  ${describe(e)}`);
    fail(
      `no order of these operations, within their real-time bounds, gives their outputs in the reference model (not linearizable):\n${lines.join("\n")}`,
    );
  }
}

/** A delete("latest") with the versions that puts of its name running at the same time published. */
function withConcurrentPuts(entry: Entry, _: number, history: readonly Entry[]): Entry {
  const op = entry.input;
  if (op.kind !== "delete" || op.selector !== "latest") return entry;
  const concurrentPuts = history.flatMap((other) =>
    other.input.kind === "put" &&
    other.input.name === op.name &&
    "put" in other.output &&
    other.invokedAt < entry.returnedAt &&
    entry.invokedAt < other.returnedAt
      ? [other.output.put]
      : [],
  );
  return { ...entry, input: { ...op, concurrentPuts } };
}

/**
 * Histories of 2 to 3 clients with up to 4 operations each and 1 to 2 observers with up to 6
 * reads each, on two names, are linearizable in the reference model.
 */
async function historiesAreLinearizable({ service, hooks, fresh, property }: LawContext) {
  const download = declaresTransfer(service, "streamingDownload");
  await property(
    [planArb(download)],
    (plan) =>
      fresh((holder) => {
        const scope = freshScope("linearizable");
        return hooks.another
          ? withHandles(holder, 1, (handles) => runPlan(handles, scope, plan))
          : runPlan([holder.service], scope, plan);
      }),
    // In-memory histories cost little: twice the runs, for the rarer interleavings.
    { scale: service.capabilities().durability === "volatile" ? 2 : 1, min: 10 },
  );
}

export const linearizabilityLaws = [
  check(
    "linearizability",
    "concurrent puts, deletes, reads, downloads and listings from several clients (and two handles, with openAnother) are linearizable in the reference model",
    historiesAreLinearizable,
  ),
];
