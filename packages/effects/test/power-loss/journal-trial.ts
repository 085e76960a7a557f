import { isArtifactError } from "@artifact-kit/core";
import type { CrashFs, CutMode, TrialResult } from "../../../fs/test/power-loss/crashfs.js";
// The seeded generator of the fault trials, from the workspace's test helpers.
import { seededRandom } from "../../../test-proxy/src/seeded-random.js";
import { type EffectRecord, FsEffectJournal } from "../../src/index.js";

// One power-loss trial of the fs journal: a seeded script of journal calls (intents, applied
// marks, settles, claims of expired leases, prunes that compact the log) runs on crashfs, the
// power is cut at a random mutating operation, and the journal reopened on what the disk kept
// must hold every acknowledged durable change; an acknowledged applied mark (never synced) may
// fall back to its intent; nothing acknowledged as pruned comes back; the call in flight is
// all or nothing; and the journal takes new changes.

const LEASE_MS = 60_000;
const scope = { kind: "app", app: "trial" } as const;
const receipt = { version: 1, sha256: "c".repeat(64), size: 1 };

/** What the script knows of one effect from the answers it got. */
interface Known {
  /** The last durable change acknowledged (the intent first). */
  durable: EffectRecord;
  /** An applied mark acknowledged after it, which a cut may lose. */
  volatile?: EffectRecord | undefined;
  pruned: boolean;
}

interface Run {
  acknowledged: number;
  /** The call the cut hit, and the effects it may have changed. */
  inFlight?: { readonly kind: string; readonly ids: readonly string[] } | undefined;
  error?: unknown;
}

/** Runs the seed's script, recording in `known` what each acknowledged call said. */
async function runScript(root: string, seed: number, known: Map<string, Known>): Promise<Run> {
  const random = seededRandom(seed);
  let now = Date.now();
  const journal = new FsEffectJournal({ root, clock: () => now });
  const run: Run = { acknowledged: 0 };
  const pick = (phase: string) => {
    const ids = [...known].filter(([, k]) => !k.pruned && current(k).phase === phase);
    return ids[Math.floor(random() * ids.length)]?.[0];
  };
  try {
    for (let step = 0; step < 40; step++) {
      const roll = random();
      const intended = pick("intended");
      const applied = pick("applied");
      if (roll < 0.3 || intended === undefined) {
        const effectId = `e${step}`;
        run.inFlight = { kind: "intend", ids: [effectId] };
        const record = await journal.intend(
          { effectId, operation: "put", scope, name: "n", requestDigest: "0".repeat(64) },
          { owner: "writer", leaseMs: LEASE_MS },
        );
        known.set(effectId, { durable: record, pruned: false });
      } else if (roll < 0.5) {
        run.inFlight = { kind: "applied", ids: [intended] };
        const k = known.get(intended) as Known;
        k.volatile = await journal.markApplied(intended, token(k), receipt);
      } else if (roll < 0.65 && applied !== undefined) {
        run.inFlight = { kind: "commit", ids: [applied] };
        const k = known.get(applied) as Known;
        k.durable = await journal.settle(applied, token(k), "committed");
        k.volatile = undefined;
      } else if (roll < 0.72) {
        run.inFlight = { kind: "not_applied", ids: [intended] };
        const k = known.get(intended) as Known;
        k.durable = await journal.settle(intended, token(k), "not_applied");
        k.volatile = undefined;
      } else if (roll < 0.82) {
        // Every lease expires; a reconciler claims some of the open effects.
        now += LEASE_MS + 1;
        const open = [...known].filter(([, k]) => !k.pruned && !isSettled(current(k)));
        run.inFlight = { kind: "claim", ids: open.map(([id]) => id) };
        const claimed = await journal.claimOrphans({
          owner: `reconciler-${step}`,
          leaseMs: LEASE_MS,
          limit: 1 + Math.floor(random() * 3),
          maxAttempts: 100,
        });
        for (const record of claimed) {
          const k = known.get(record.effectId) as Known;
          k.durable = record;
          k.volatile = undefined;
        }
      } else {
        const settled = [...known].filter(([, k]) => !k.pruned && isSettled(current(k)));
        run.inFlight = { kind: "prune", ids: settled.map(([id]) => id) };
        await journal.prune({ olderThan: now + 1, limit: 1000 });
        for (const [, k] of settled) k.pruned = true;
      }
      run.inFlight = undefined;
      run.acknowledged++;
    }
  } catch (error) {
    run.error = error;
  } finally {
    await journal.close().catch(() => {});
  }
  return run;
}

const current = (k: Known) => k.volatile ?? k.durable;
const token = (k: Known) => current(k).lease.fencingToken;
const isSettled = (record: EffectRecord) =>
  record.phase !== "intended" && record.phase !== "applied";
const same = (a: EffectRecord | undefined, b: EffectRecord | undefined) =>
  JSON.stringify(a) === JSON.stringify(b);

export async function runTrial(
  crashfs: CrashFs,
  mode: CutMode,
  seed: number,
): Promise<TrialResult> {
  const root = crashfs.mountpoint;
  const violations: string[] = [];

  // Count the script's mutating operations uncut, then cut at a random one of them.
  await crashfs.fresh();
  const first = (await crashfs.status()).ops;
  const uncut = await runScript(root, seed, new Map());
  if (uncut.error !== undefined) violations.push(`broken: the uncut run failed: ${uncut.error}`);
  const total = (await crashfs.status()).ops - first;
  const cutAt = 1 + Math.floor(seededRandom(seed ^ 0x5eed)() * Math.max(1, total));

  await crashfs.fresh();
  const known = new Map<string, Known>();
  await crashfs.arm(cutAt);
  const run = await runScript(root, seed, known);
  const { cutOn } = await crashfs.status();
  if (run.error !== undefined && (cutOn === "" || !isArtifactError(run.error, "unavailable"))) {
    violations.push(`broken: a call failed other than by the cut: ${String(run.error)}`);
  }
  const report = await crashfs.remount(mode, seed);

  const journal = new FsEffectJournal({ root });
  try {
    const found = new Map((await journal.list()).map((record) => [record.effectId, record]));
    const inFlight = new Set(run.inFlight?.ids ?? []);
    for (const [effectId, record] of found) {
      if (!known.has(effectId) && !(run.inFlight?.kind === "intend" && inFlight.has(effectId))) {
        violations.push(`garbage: ${effectId} was never intended`);
      }
      if (record.effectId !== effectId) violations.push(`torn: ${effectId} reads as another`);
    }
    for (const [effectId, k] of known) {
      const record = found.get(effectId);
      const flying = inFlight.has(effectId);
      if (k.pruned) {
        if (record !== undefined) violations.push(`undone: pruned ${effectId} came back`);
        continue;
      }
      if (record === undefined) {
        if (!(flying && run.inFlight?.kind === "prune")) {
          violations.push(`lost: ${effectId} (${current(k).phase}) is gone`);
        }
        continue;
      }
      const allowed = same(record, k.durable) || same(record, k.volatile);
      // The call in flight may have landed: its change is then the state (checked by phase).
      if (!allowed && !flying) {
        violations.push(
          `lost: ${effectId} reads ${record.phase}, acknowledged ${current(k).phase}`,
        );
      }
    }
    // The journal takes new changes after the cut.
    const next = await journal.intend(
      { effectId: "after-cut", operation: "put", scope, name: "n", requestDigest: "0".repeat(64) },
      { owner: "writer", leaseMs: LEASE_MS },
    );
    await journal.markApplied(next.effectId, 1, receipt);
    const reopened = new FsEffectJournal({ root });
    if ((await reopened.get("after-cut"))?.phase !== "applied") {
      violations.push("broken: a change after the cut did not read back");
    }
    await reopened.close();
  } catch (error) {
    violations.push(`broken: the journal failed after the cut: ${String(error)}`);
  } finally {
    await journal.close();
  }
  return {
    mode,
    seed,
    acknowledged: run.acknowledged,
    inFlight: run.inFlight?.kind ?? "idle",
    report,
    violations,
  };
}
