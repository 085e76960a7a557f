import fc from "fast-check";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { FAULT_KINDS, type FaultInjection, type FaultKind } from "../faults/injection.js";
import { FaultNameModel } from "../faults/model.js";
import {
  describeStep,
  FAULT_KEYS,
  type FaultOp,
  type FaultStep,
  keyTag,
  resolveName,
  runFaultStep,
} from "../faults/steps.js";

// Faults as laws (the subject's `faults`): sequences of puts, keyed puts and their retries,
// deletes of every kind, reads and listings on two names, four in five of them with a fault
// armed at one of their backend requests (the first, mostly; else one of the next four). After each fault the kit reads the name back with
// none armed, and checks: nothing acknowledged is lost, nothing deleted comes back, a failed
// put appears at most once, and a keyed put with its retries publishes at most one version.

const FAULT_NAMES: readonly string[] = Object.freeze(["faulty", "faulty/x"]);

const opArb: fc.Arbitrary<FaultOp> = fc.oneof(
  { arbitrary: fc.constant<FaultOp>({ kind: "put", tag: 0 }), weight: 3 },
  {
    arbitrary: fc.constantFrom(...FAULT_KEYS).map(
      (key): FaultOp => ({
        kind: "keyed",
        key,
        tag: keyTag(key),
      }),
    ),
    weight: 3,
  },
  {
    arbitrary: fc
      .oneof(fc.constant<"latest">("latest"), fc.constant<"all">("all"), fc.nat(3))
      .map((pick): FaultOp => ({ kind: "delete", pick })),
    weight: 2,
  },
  { arbitrary: fc.constant<FaultOp>({ kind: "get" }), weight: 1 },
  { arbitrary: fc.constant<FaultOp>({ kind: "list" }), weight: 1 },
);

/** Four steps in five carry a fault. */
const faultArb: fc.Arbitrary<FaultKind | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 1 },
  ...FAULT_KINDS.map((kind) => ({ arbitrary: fc.constant(kind), weight: 2 })),
);

/** Unkeyed puts get a payload of their own each (tags 1, 2, ...); keyed ones their key's. */
const stepsArb: fc.Arbitrary<FaultStep[]> = fc
  .array(
    fc.record({
      name: fc.oneof(
        { arbitrary: fc.constant(FAULT_NAMES[0] as string), weight: 3 },
        { arbitrary: fc.constant(FAULT_NAMES[1] as string), weight: 1 },
      ),
      op: opArb,
      fault: faultArb,
      skip: fc.oneof({ arbitrary: fc.constant(0), weight: 2 }, { arbitrary: fc.nat(4), weight: 1 }),
    }),
    { minLength: 10, maxLength: 30 },
  )
  .map((steps) => {
    let tag = 0;
    return steps.map((step) =>
      step.op.kind === "put" ? { ...step, op: { kind: "put", tag: ++tag } } : step,
    );
  });

/**
 * Random sequences with faults at their operations' backend requests lose nothing
 * acknowledged, bring nothing deleted back, and publish each failed or keyed put at most once.
 */
async function faultsLoseNothing({ fresh, property }: LawContext) {
  await property([stepsArb], (steps) =>
    fresh(async (holder) => {
      const faults = holder.subject.faults as FaultInjection;
      const scope = freshScope("faults");
      const models = new Map(FAULT_NAMES.map((name) => [name, new FaultNameModel(name)]));
      for (const [i, step] of steps.entries()) {
        const model = models.get(step.name) as FaultNameModel;
        if (step.fault !== undefined) faults.armNext(step.fault, step.skip);
        try {
          await runFaultStep(holder.service, scope, model, step);
        } finally {
          if (step.fault !== undefined) faults.disarm();
        }
        if (step.fault !== undefined) {
          const read = `the read after step ${i + 1}, ${describeStep(step)}`;
          await resolveName(holder.service, scope, model, read);
        }
      }
      for (const model of models.values()) {
        await resolveName(holder.service, scope, model, "the read after the last step");
      }
    }),
  );
}

export const faultLaws = [
  check(
    "faults",
    "with cut requests and lost replies, nothing acknowledged is lost, nothing deleted comes back, and a failed or keyed put publishes at most once",
    faultsLoseNothing,
    { needs: ["faults"] },
  ),
];
