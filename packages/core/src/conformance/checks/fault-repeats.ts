import { inspect } from "node:util";
import { isArtifactError } from "../../errors.js";
import type { ArtifactService, DeleteSelector } from "../../types.js";
import { check, type LawContext } from "../check.js";
import { expectEqual, expectTrue, fail } from "../expect.js";
import { FAULT_KINDS, type FaultInjection, type FaultKind } from "../faults/injection.js";
import { isFaultFailure } from "../faults/steps.js";
import { agreedVersions, type LoneScope, taggedPayload } from "../faults/views.js";
import { freshApp } from "./scope-listing.js";

// Faults that repeat: a client that retries a failed request once (the s3 and azure SDKs)
// hides a single fault, and a network that stays down for two or three requests shows what
// it hides. A fixed walk arms the same fault at two consecutive requests (three too, for a
// delete("all") of several versions) of a delete (of one version, of "latest", of "all";
// names of one and of two versions) and of a keyed put, starting at each of the call's
// requests in turn. After the failed call, every
// read agrees on which versions are live (see agreedVersions), and what it shows is a state
// the call may have left: the old one, the call's effect, or (for "all") part of it. Then the
// same call, retried with no fault, finishes the job from what the reads show: a delete of a
// listed version succeeds (not_found only when nothing it names is listed) and deletes just
// that, and the keyed put answers the version it published, once.

/** A call's requests are few; a walk longer than this never ends. */
const MAX_REQUESTS = 64;
const NAME = "n";
/** The keyed put's payload tag (the setup's versions are tagged 1, 2). */
const PUT_TAG = 9;

type RepeatCall = { readonly delete: DeleteSelector } | { readonly put: "keyed" };

interface RepeatCase {
  readonly call: RepeatCall;
  /** How many versions the name holds before the call (tagged 1, 2, ...). */
  readonly versions: number;
  /** How many consecutive requests the fault strikes, walk after walk. */
  readonly times: readonly number[];
}

// Two faults in a row beat a client that retries once (the s3 and azure SDKs as the matrix
// runs them); a third reaches further only where a call sends requests side by side (a
// delete("all") of several versions) or its client retries twice, so only there is it walked:
// each walk costs s3 and azure tens of seconds.
const CASES: readonly RepeatCase[] = [
  { call: { delete: 1 }, versions: 1, times: [2] },
  { call: { delete: 1 }, versions: 2, times: [2] },
  { call: { delete: "latest" }, versions: 2, times: [2] },
  { call: { delete: "all" }, versions: 1, times: [2] },
  { call: { delete: "all" }, versions: 2, times: [2, 3] },
  { call: { put: "keyed" }, versions: 1, times: [2] },
];

const describeCall = (call: RepeatCall) =>
  "put" in call
    ? "a keyed put"
    : `delete(${typeof call.delete === "number" ? `version ${call.delete}` : call.delete})`;

/** The versions a delete with `selector` names among `live` (ascending). */
function targetsOf(selector: DeleteSelector, live: readonly number[]): number[] {
  if (selector === "all") return [...live];
  if (selector === "latest") return live.slice(-1);
  return live.filter((version) => version === selector);
}

/** Runs the call: its version for a put, "done" or "not_found" for a delete. */
async function run(service: ArtifactService, scope: LoneScope, call: RepeatCall) {
  if ("put" in call) {
    const options = { idempotencyKey: "repeat" };
    return (await service.put(scope, NAME, taggedPayload(PUT_TAG), options)).version;
  }
  return service.delete(scope, NAME, call.delete).then(
    () => "done" as const,
    (error: unknown) => {
      if (isArtifactError(error, "not_found")) return "not_found" as const;
      throw error;
    },
  );
}

/** What the reads after the failed call may show: the call had no effect, or some or all. */
function expectPossible(call: RepeatCall, before: number[], after: number[], step: string) {
  if ("put" in call) {
    const added = after.filter((version) => !before.includes(version));
    expectEqual(after.slice(0, before.length), before, `${step}: the versions put before`);
    expectTrue(added.length <= 1, `${step}: one keyed put published ${added.join(", ")}`);
    return;
  }
  const named = targetsOf(call.delete, before);
  const removed = before.filter((version) => !after.includes(version));
  expectTrue(
    after.every((version) => before.includes(version)) &&
      removed.every((version) => named.includes(version)),
    `${step}: listed ${after.join(", ") || "nothing"}, from ${before.join(", ")}, by ${describeCall(call)}`,
  );
}

/** One walk step: the fault at `times` requests from request `skip + 1`; false when none took it. */
async function repeatAt(
  service: ArtifactService,
  faults: FaultInjection,
  { call, versions }: RepeatCase,
  fault: { kind: FaultKind; times: number; skip: number },
): Promise<boolean> {
  const scope: LoneScope = { kind: "session", app: freshApp("repeat"), user: "u", session: "s" };
  const tags = new Map<number, number>();
  for (let tag = 1; tag <= versions; tag++) {
    tags.set((await service.put(scope, NAME, taggedPayload(tag))).version, tag);
  }
  const before = [...tags.keys()];
  const what = `${describeCall(call)} on a name of ${versions} version(s), with ${fault.kind} at ${fault.times} requests from request ${fault.skip + 1}`;
  faults.armNext(fault.kind, fault.skip, fault.times);
  let first: Awaited<ReturnType<typeof run>> | "failed";
  try {
    first = await run(service, scope, call);
  } catch (error) {
    if (!isFaultFailure(error)) {
      faults.disarm();
      return fail(`${what}: failed with ${inspect(error)}`);
    }
    first = "failed";
  }
  if (!faults.disarm()) return false;
  expectTrue(first !== "not_found", `${what}: not_found with ${before.join(", ")} listed`);
  if (typeof first === "number") tags.set(first, PUT_TAG);
  // A put that failed may have published: the reads say where, and its bytes are the put's.
  const top = Math.max(0, ...before);
  const tagAt = (version: number) =>
    tags.get(version) ?? ("put" in call && version > top ? PUT_TAG : undefined);
  const step = `after ${what} (${first === "failed" ? "failed" : "succeeded"})`;
  const seen = await agreedVersions(service, scope, NAME, { tagAt, gone: before, step });
  expectPossible(call, before, seen, step);
  if (typeof first === "number") expectEqual(seen, [...before, first], `${step}: versions`);
  if (first === "done" && "delete" in call) {
    const left = before.filter((version) => !targetsOf(call.delete, before).includes(version));
    expectEqual(seen, left, `${step}: versions`);
  }
  // The same call again, no fault armed: it finishes the job from what the reads showed.
  const again = await run(service, scope, call).catch((error: unknown) =>
    fail(`${step}, the same call again failed with ${inspect(error)}`),
  );
  const retried = `${step}, then the same call again`;
  let expected: number[];
  if ("put" in call) {
    const published = seen.find((version) => !before.includes(version));
    const answered = again as number;
    expectTrue(
      published === undefined ? answered > top : answered === published,
      `${retried}: answered version ${answered}, with ${seen.join(", ")} listed`,
    );
    tags.set(answered, PUT_TAG);
    expected = [...before, answered];
  } else {
    const named = targetsOf(call.delete, seen);
    expectEqual(
      again,
      named.length > 0 ? "done" : "not_found",
      `${retried}, with ${seen.join(", ") || "nothing"} listed`,
    );
    expected = seen.filter((version) => !named.includes(version));
  }
  // The versions the retry left alone were read one by one after the failure: listed is enough.
  const after = await agreedVersions(service, scope, NAME, {
    tagAt,
    gone: before,
    step: retried,
    eachLive: false,
  });
  expectEqual(after, expected, `${retried}: versions`);
  return true;
}

/** Repeated faults at each request of each call leave every read agreeing, and a retry finishes. */
async function repeatedFaultsLeaveReadsAgreeing({ fresh }: LawContext) {
  await fresh(async (holder) => {
    const faults = holder.subject.faults as FaultInjection;
    for (const repeat of CASES) {
      for (const kind of FAULT_KINDS) {
        for (const times of repeat.times) {
          let skip = 0;
          while (await repeatAt(holder.service, faults, repeat, { kind, times, skip })) {
            skip += 1;
            if (skip > MAX_REQUESTS) fail(`a call made over ${MAX_REQUESTS} requests`);
          }
        }
      }
    }
  });
}

export const faultRepeatLaws = [
  // Its own family, so that a patched copy can run it alone; "repeated faults: " still matches
  // the matrix's `only: "faults: "`, which runs it over every fault subject.
  check(
    "repeated faults",
    "after the same fault at two consecutive requests of a delete (one version, latest, all; three for all of several versions) or a keyed put, every read agrees on what is live, and the same call retried finishes the job: a delete of a listed version succeeds, a keyed put answers its one version",
    repeatedFaultsLeaveReadsAgreeing,
    { needs: ["faults"] },
  ),
];
