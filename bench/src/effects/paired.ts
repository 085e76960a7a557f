import { parseArgs } from "node:util";
import { FsEffectJournal, journalArtifacts } from "@artifact-kit/effects";
import { FsArtifactService } from "@artifact-kit/fs";
import { positiveInteger } from "../args.js";
import { BENCH_SCOPE } from "../kit-store.js";
import { describeMachine, loadAverage } from "../machine.js";
import {
  comparePuts,
  type OpenPutter,
  PAIRED_TABLE_HEADER,
  servicePutter,
} from "../paired-puts.js";
import { ScratchSpace } from "../scratch.js";
import { KiB, payload } from "../workloads.js";

// Issue 18's target (a journaled put of 4 KiB at most 2x a plain durable put, over fs with
// an fs journal on the same disk), as paired ratios (see paired.ts): tinybench's phases run
// one after another and meet different load; here each pair times both sides back to back.
// Beside it, a keyed put (what the journaled put makes: the effect id as idempotency key),
// the journaled put plus its commit, and an A/A control.

const { values } = parseArgs({ options: { pairs: { type: "string", default: "200" } } });
const pairs = positiveInteger(values.pairs, "--pairs");

const scratch = new ScratchSpace();
const fsIn = (owner: string) => () => FsArtifactService.open({ root: scratch.fresh(owner) });

let keys = 0;
const keyed = servicePutter(fsIn("keyed"), () => ({ idempotencyKey: `key-${keys++}` }));

function journaled(commit: boolean): OpenPutter {
  return async () => {
    const owner = commit ? "journaled-commit" : "journaled";
    const service = await fsIn(owner)();
    const journal = new FsEffectJournal({ root: scratch.fresh(`${owner}-journal`) });
    const artifacts = journalArtifacts(service, BENCH_SCOPE, {
      journal,
      owner: "bench",
      leaseMs: 60_000,
    });
    return {
      put: async (bytes) => {
        const written = await artifacts.put("report.bin", bytes);
        if (commit) await artifacts.commit(written.effectId);
        return written;
      },
      close: async () => {
        await service.close();
        await journal.close();
      },
    };
  };
}

try {
  console.log(describeMachine());
  console.log(`command: node dist/effects/paired.js --pairs ${pairs}`);
  const before = loadAverage();
  const plain = servicePutter(fsIn("plain"));
  const options = { pairs, batch: 4, warmupPairs: 10 };
  const bytes = payload(4 * KiB);
  const rows = [
    await comparePuts("fs put 4 KiB: keyed", plain, keyed, bytes, options),
    await comparePuts("fs put 4 KiB: journaled", plain, journaled(false), bytes, options),
    await comparePuts("fs put 4 KiB: journaled + commit", plain, journaled(true), bytes, options),
    await comparePuts(
      "fs put 4 KiB: plain vs plain (A/A control)",
      plain,
      servicePutter(fsIn("plain-again")),
      bytes,
      options,
    ),
  ];
  console.log(`load average ${before} before, ${loadAverage()} after`);
  console.log(`\n${[...PAIRED_TABLE_HEADER, ...rows].join("\n")}`);
  console.log("\ntarget (issue 18): journaled/plain median ratio <= 2x");
} finally {
  scratch.close();
}
