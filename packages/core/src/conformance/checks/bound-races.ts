import type { ArtifactService } from "../../types.js";
import { type CheckOutcome, check, type LawContext, skip } from "../check.js";
import { expectArtifactError, expectEqual, fail } from "../expect.js";
import { withHandles } from "../handles.js";
import type { ServiceHolder } from "../subject.js";
import {
  type BoundSpec,
  declared,
  Layout,
  layoutKeeps,
  MAX_BYTES,
  MAX_PUTS,
  SERVICE_WIDE_BOUNDS,
  type Slot,
  SPECS,
} from "./bounds.js";

// Bounds under contention: with room left for exactly one more put, several puts race for it
// (through two instances on one backend when the subject can open another): exactly one
// wins, every other fails with the bound's own error, and the bound still holds after. A
// check-then-write without a lock or a conditional write lets two through here; for a
// scope's bounds half the racers take names of their own, so that a lock per name (which
// queues racers on one name) cannot hide a scope's count read without its own lock, and the
// race is run again for the room its winner's delete frees.

const RACERS = 8;

/**
 * Where the i-th racer puts: its own name or scope when the bound counts those; for a bound
 * over a whole scope, half the racers (spread over the handles) on names of their own beside
 * the others on one name (a name bound the new names reach fails those with capacity_reached).
 */
function racerSlot(spec: BoundSpec, layout: Layout, over: () => Slot, i: number): Slot {
  if (spec.spread === "name" || (spec.scopeWide && i % 4 >= 2)) {
    return { scope: layout.current.scope, name: `racer-${i}` };
  }
  return over();
}

/**
 * Rounds of the race for a scope's bounds: the room the winner took is freed by deleting it
 * and raced for again. A window between reading a count and writing it is short in a SQL
 * function, so one race rarely lands in it; several give it as many chances (10 rounds let a
 * postgres copy that reads the scope's usage without its lock pass a whole CI run).
 */
const SCOPE_ROUNDS = 30;

/** One race for the last room: exactly one racer wins; returns where it put and its version. */
async function raceOnce(
  handles: readonly ArtifactService[],
  spec: BoundSpec,
  bound: number,
  slots: readonly Slot[],
  data: Uint8Array,
): Promise<{ slot: Slot; version: number }> {
  const outcomes = await Promise.allSettled(
    slots.map((slot, i) =>
      (handles[i % handles.length] as ArtifactService).put(slot.scope, slot.name, data),
    ),
  );
  // A loser may name another bound its put would also pass (the race's name may be full
  // too): which bound an adapter checks first is its own business, letting two in is not.
  for (const outcome of outcomes) {
    if (outcome.status === "fulfilled") continue;
    const code = (outcome.reason as { code?: unknown }).code;
    if (code !== "quota_exceeded" && code !== "capacity_reached") {
      fail(
        `a racer for the last room under ${spec.bound} failed with ${String(outcome.reason)}, expected ${spec.code} (or another bound's code)`,
      );
    }
  }
  const won = outcomes.flatMap((outcome, i) =>
    outcome.status === "fulfilled"
      ? [{ slot: slots[i] as Slot, version: outcome.value.version }]
      : [],
  );
  expectEqual(
    won.length,
    1,
    `puts that won the last room under ${spec.bound} = ${bound} (${RACERS} raced)`,
  );
  return won[0] as { slot: Slot; version: number };
}

async function race(
  handles: readonly ArtifactService[],
  spec: BoundSpec,
  bound: number,
): Promise<CheckOutcome> {
  const [first] = handles as [ArtifactService];
  const bounds = first.capabilities().quotas.bounds;
  const plan = spec.plan(bound, bounds);
  if (typeof plan === "string") return skip(`${spec.bound}: ${plan}`);
  if (plan.count > MAX_PUTS || plan.count * plan.size > MAX_BYTES) {
    return skip(`${spec.bound} = ${bound} is too large to reach in a test; pass createBounded`);
  }
  const layout = new Layout(bounds, `race-${spec.bound}`, layoutKeeps(spec), spec.spread);
  const data = new Uint8Array(plan.size);
  for (let i = 0; i < plan.count - 1; i++) {
    const slot = layout.next(plan.size, plan.newScopes);
    if (!slot) return skip(`${spec.bound} cannot be reached before another declared bound`);
    await first.put(slot.scope, slot.name, data);
  }
  const over = () => {
    const slot = plan.over(layout, bound);
    return { scope: slot.scope, name: slot.name };
  };
  // Every handle first serves as many reads at once as there are racers, so that the racers
  // overlap instead of queueing behind connections a pool opens on first use.
  const { scope, name } = layout.current;
  await Promise.all(
    handles.flatMap((handle) =>
      Array.from({ length: RACERS }, () => handle.listVersions(scope, name)),
    ),
  );
  const slots = Array.from({ length: RACERS }, (_, i) => racerSlot(spec, layout, over, i));
  for (let round = 1; spec.scopeWide && round < SCOPE_ROUNDS; round++) {
    const winner = await raceOnce(handles, spec, bound, slots, data);
    await first.delete(winner.slot.scope, winner.slot.name, winner.version);
  }
  await raceOnce(handles, spec, bound, slots, data);
  const last = racerSlot(spec, layout, over, RACERS);
  await expectArtifactError(
    () => first.put(last.scope, last.name, new Uint8Array(1)),
    spec.code,
    `a put beyond ${spec.bound} = ${bound} after the race`,
  );
  return undefined;
}

function racersNeverPassTogether(spec: BoundSpec) {
  return async ({ service, fresh }: LawContext): Promise<CheckOutcome> => {
    const capabilities = service.capabilities();
    const bound = declared(capabilities, spec.bound);
    if (bound === undefined) return skip(`the adapter declares no ${spec.bound}`);
    if (capabilities.quotas.appliesTo === "per_shard" && SERVICE_WIDE_BOUNDS.has(spec.bound)) {
      return skip(`${spec.bound} applies per shard: the service has no single edge`);
    }
    return fresh((holder: ServiceHolder) =>
      holder.subject.openAnother
        ? withHandles(holder, 1, (handles) => race(handles, spec, bound))
        : race([holder.service], spec, bound),
    );
  };
}

export const boundRaceLaws = SPECS.map((spec) =>
  check(
    "bounds",
    `${RACERS} puts racing for the last room under ${spec.bound} (through two instances when the subject opens another): exactly one wins, the rest fail with ${spec.code}`,
    racersNeverPassTogether(spec),
    { needs: ["bounded"] },
  ),
);
