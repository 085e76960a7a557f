import type { ArtifactMeta, Scope } from "@artifact-kit/core";
import { expect } from "vitest";
import type { FsArtifactService } from "../src/index.js";

// What the SIGKILL trials over fixtures/keyed-crash-child.mjs share: the child's scope and
// payloads, reading what it announced before it died, retrying its operation in flight, and
// the closing checks on what it left.

/** The child's scope (see fixtures/keyed-crash-child.mjs). */
export const KEYED_SCOPE: Scope = { kind: "user", app: "keyed-crash", user: "u" };

/** The child's payload of operation `i`: derived from `i` only, so a retry can repeat it. */
export const keyedPayload = (i: number) =>
  new TextEncoder().encode(`payload of operation ${i};`.repeat(1 + (i % 7) * 40));

const keyedName = (i: number) => `n${i % 3}`;
const keyedOptions = (i: number) => ({ idempotencyKey: `op-${i}`, metadata: { i } });

/**
 * Adds the child's acknowledged operations ("done <i> <version>") to `versionOf`, and answers
 * the operation it began and never acknowledged, if any.
 */
export function readKeyedLog(lines: readonly string[], versionOf: Map<number, number>) {
  let inFlight: number | undefined;
  for (const line of lines) {
    const [kind, index, version] = line.split(" ");
    if (kind === "begin") inFlight = Number(index);
    if (kind === "done") {
      versionOf.set(Number(index), Number(version));
      inFlight = undefined;
    }
  }
  return inFlight;
}

/** Retries operation `i` with its key and payload, as a caller whose answer was lost would. */
export async function retryKeyed(service: FsArtifactService, i: number): Promise<number> {
  const meta = await service.put(KEYED_SCOPE, keyedName(i), keyedPayload(i), keyedOptions(i));
  return meta.version;
}

/**
 * Every acknowledged operation replays to its version with its bytes, no key is bound to two
 * versions, nothing else is published, and a repair completes without finding damage.
 */
export async function expectKeyedReplays(
  service: FsArtifactService,
  versionOf: ReadonlyMap<number, number>,
): Promise<void> {
  for (const [i, version] of versionOf) {
    expect([i, await retryKeyed(service, i)]).toEqual([i, version]);
    const got = await service.get(KEYED_SCOPE, keyedName(i), { version });
    expect(Buffer.from(got.data).equals(Buffer.from(keyedPayload(i)))).toBe(true);
  }
  const everything: ArtifactMeta[] = [];
  for (const name of ["n0", "n1", "n2"]) {
    everything.push(...(await service.listVersions(KEYED_SCOPE, name)).items);
  }
  const keys = everything.map((meta) => meta.idempotencyKey);
  expect(new Set(keys).size).toBe(keys.length);
  expect(everything.length).toBe(versionOf.size);
  expect((await service.repair({ minAgeMs: 0 })).complete).toBe(true);
}
