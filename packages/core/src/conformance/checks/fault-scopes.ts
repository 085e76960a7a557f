import type { ArtifactService, Scope } from "../../types.js";
import { check, type LawContext } from "../check.js";
import { expectEqual, fail } from "../expect.js";
import { FAULT_KINDS, type FaultInjection, type FaultKind } from "../faults/injection.js";
import { isFaultFailure } from "../faults/steps.js";
import { listedAmong, readAllScopeIds } from "../observe-scopes.js";
import { freshApp } from "./scope-listing.js";

// Faults and listScopes: an adapter that records what it knows of a scope (a marker, a row, a
// cache entry) beside the scope's versions can let a failure at one of those writes leave the
// two apart, e.g. remember a marker as written when its write failed and never list the scope.
// So a fault walks through every backend request of a first put into a fresh scope and of the
// delete("all") that empties it, and after each the scope is listed at every level exactly
// while it holds a live version, through the same handle (whose caches outlive the failure).

const ONE_BYTE = new Uint8Array([1]);

/** A put's or delete's requests are few; a walk longer than this never ends. */
const MAX_REQUESTS = 64;

/** Runs `operation` with `kind` armed after `skip` requests; true when a request took it. */
async function withFault(
  faults: FaultInjection,
  kind: FaultKind,
  skip: number,
  operation: () => Promise<unknown>,
): Promise<boolean> {
  faults.armNext(kind, skip);
  try {
    await operation();
  } catch (error) {
    if (!isFaultFailure(error)) {
      faults.disarm();
      throw error;
    }
  }
  return faults.disarm();
}

/** Whether the scope's name holds a live version, read with no fault armed. */
async function holdsLive(service: ArtifactService, scope: Scope): Promise<boolean> {
  return (await service.listVersions(scope, "n")).items.length > 0;
}

/** The app, its user and the session are listed, each at its level, exactly when `live`. */
async function expectListedIff(
  service: ArtifactService,
  scope: Scope & { kind: "session" },
  live: boolean,
  step: string,
) {
  const state = live ? "holds a live version" : "holds none";
  expectEqual(
    await listedAmong(service, [scope.app]),
    live ? [scope.app] : [],
    `${step}, the scope ${state}: its app listed`,
  );
  expectEqual(
    await readAllScopeIds(service, { kind: "user", app: scope.app }),
    live ? [scope.user] : [],
    `${step}, the scope ${state}: its user listed`,
  );
  expectEqual(
    await readAllScopeIds(service, { kind: "session", app: scope.app, user: scope.user }),
    live ? [scope.session] : [],
    `${step}, the scope ${state}: its session listed`,
  );
}

/** One fault at request `skip` of a first put and of the delete("all"); false when neither took it. */
async function faultAt(
  service: ArtifactService,
  faults: FaultInjection,
  kind: FaultKind,
  skip: number,
): Promise<boolean> {
  const app = freshApp(`fault-${kind}-${skip}`);
  const scope = { kind: "session", app, user: "u", session: "s" } as const;
  const at = `a ${kind} fault at request ${skip + 1}`;
  // Only a fault that a request took is checked for: the rest is the scope-listing laws' case.
  const putTook = await withFault(faults, kind, skip, () => service.put(scope, "n", ONE_BYTE));
  if (putTook) {
    const step = `after ${at} of a first put`;
    await expectListedIff(service, scope, await holdsLive(service, scope), step);
  }
  await service.put(scope, "n", ONE_BYTE);
  if (putTook) {
    await expectListedIff(
      service,
      scope,
      true,
      `after ${at} of a first put, then a put that succeeded`,
    );
  }
  const deleteTook = await withFault(faults, kind, skip, () => service.delete(scope, "n", "all"));
  if (deleteTook) {
    const step = `after ${at} of delete("all")`;
    const live = await holdsLive(service, scope);
    await expectListedIff(service, scope, live, step);
    if (live) {
      // The version is still listed: this delete finds it live, so it deletes it and succeeds
      // (not_found here was the protocol's trailer dialect before deletion seals).
      await service.delete(scope, "n", "all");
      await expectListedIff(service, scope, false, `${step}, then a delete("all") that succeeded`);
    }
  }
  return putTook || deleteTook;
}

/** Faults at each request of a put and a delete leave the scope listed exactly while it is live. */
async function faultsKeepScopesListed({ fresh }: LawContext) {
  await fresh(async (holder) => {
    const faults = holder.subject.faults as FaultInjection;
    for (const kind of FAULT_KINDS) {
      let skip = 0;
      while (await faultAt(holder.service, faults, kind, skip)) {
        skip += 1;
        if (skip > MAX_REQUESTS) fail(`a put or delete made over ${MAX_REQUESTS} requests`);
      }
    }
  });
}

export const faultScopeLaws = [
  // Its own family, so that a patched copy can run it alone; "scope faults: " still matches
  // the matrix's `only: "faults: "`, which runs it over every fault subject.
  check(
    "scope faults",
    "after a fault at any request of a first put or of the delete that empties it, the scope's app, user and session are listed exactly while it holds a live version",
    faultsKeepScopesListed,
    { needs: ["faults"] },
  ),
];
