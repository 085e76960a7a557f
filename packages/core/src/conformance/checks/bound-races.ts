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
// queues racers on one name) cannot hide a scope's count read without its own lock.

const RACERS = 8;

/**
 * Where the i-th racer puts: its own name or scope when the bound counts those; for a bound
 * over a whole scope, every odd racer a name of its own beside the even ones on one name (a
 * name bound the new names reach fails those with capacity_reached, leaving the even ones).
 */
function racerSlot(spec: BoundSpec, layout: Layout, over: () => Slot, i: number): Slot {
  if (spec.spread === "name" || (spec.scopeWide && i % 2 === 1)) {
    return { scope: layout.current.scope, name: `racer-${i}` };
  }
  return over();
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
  const outcomes = await Promise.allSettled(
    Array.from({ length: RACERS }, (_, i) => {
      const slot = racerSlot(spec, layout, over, i);
      return (handles[i % handles.length] as ArtifactService).put(slot.scope, slot.name, data);
    }),
  );
  const won = outcomes.filter((outcome) => outcome.status === "fulfilled").length;
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
  expectEqual(
    won,
    1,
    `puts that won the last room under ${spec.bound} = ${bound} (${RACERS} raced)`,
  );
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
