import { randomBytes } from "node:crypto";
import {
  type ArtifactMeta,
  type ArtifactService,
  allNames,
  allVersions,
  type JsonObject,
  type Scope,
  scopeKey,
  sha256Hex,
} from "@artifact-kit/core";
import { expect } from "vitest";

// A source store with versions spread over three scopes (one id holding "/", names with
// non-ASCII and astral characters), gaps left by deletes, and two versions large enough to
// stream; and the check that a store holds exactly those versions, in order, once each.

export const SCOPES: readonly Scope[] = [
  { kind: "app", app: "copy" },
  { kind: "user", app: "copy", user: "ada/lovelace" },
  { kind: "session", app: "copy", user: "ada/lovelace", session: "s-1" },
];

/** The --scope arguments of SCOPES. */
export const SCOPE_ARGS = ["copy", "copy/ada%2Flovelace", "copy/ada%2Flovelace/s-1"].flatMap(
  (scope) => ["--scope", scope],
);

const NAMES = ["notes/a.txt", "notes/b.txt", "é/ü.json", "😀/astral", "reports/q4"];

/** What one live version must be on every store it is copied to. */
interface Expected {
  readonly sha256: string;
  readonly size: number;
  readonly mimeType: string;
  readonly metadata: JsonObject;
}

/** Live versions by scope and name, in ascending version order. */
export type Expectation = Map<string, Expected[]>;

const keyOf = (scope: Scope, name: string) => `${scopeKey(scope)}\n${name}`;

/**
 * Puts `count` versions round-robin over the scopes and names, deletes every fifth one of
 * the first name (so version numbers have gaps), and returns what stays live.
 */
export async function seedSource(service: ArtifactService, count: number): Promise<Expectation> {
  const large = new Set([3, Math.floor(count / 2)]);
  for (let i = 0; i < count; i += 1) {
    const scope = SCOPES[i % SCOPES.length] as Scope;
    const name = NAMES[Math.floor(i / SCOPES.length) % NAMES.length] as string;
    const data = large.has(i) ? randomBytes(1536 * 1024 + i) : new TextEncoder().encode(`v${i}`);
    await service.put(scope, name, data, {
      mimeType: i % 2 === 0 ? "text/plain" : "application/json",
      metadata: { i, note: `version ${i}`, nested: { even: i % 2 === 0 } },
    });
  }
  const first = NAMES[0] as string;
  for (const scope of SCOPES) {
    for (const meta of await allVersions(service, scope, first)) {
      if (meta.version % 5 === 0) await service.delete(scope, first, meta.version);
    }
  }
  return expectationOf(service);
}

async function expectationOf(service: ArtifactService): Promise<Expectation> {
  const expected: Expectation = new Map();
  for (const scope of SCOPES) {
    for (const name of await allNames(service, scope)) {
      const versions = await allVersions(service, scope, name);
      expected.set(keyOf(scope, name), versions.map(expectedOf));
    }
  }
  return expected;
}

const expectedOf = ({ sha256, size, mimeType, metadata }: ArtifactMeta): Expected => ({
  sha256,
  size,
  mimeType,
  metadata,
});

export function countOf(expected: Expectation): number {
  return [...expected.values()].reduce((sum, versions) => sum + versions.length, 0);
}

/**
 * The store holds exactly the expected versions of every name, in the same order, each
 * once (one copy key each), and every one reads back with its SHA-256.
 */
export async function expectHolds(service: ArtifactService, expected: Expectation): Promise<void> {
  const seen = new Set<string>();
  for (const scope of SCOPES) {
    for (const name of await allNames(service, scope)) {
      seen.add(keyOf(scope, name));
      const versions = await allVersions(service, scope, name);
      expect(versions.map(expectedOf), `${scopeKey(scope)} ${name}`).toEqual(
        expected.get(keyOf(scope, name)),
      );
      const keys = versions.map((meta) => meta.idempotencyKey);
      expect(new Set(keys).size).toBe(keys.length);
      for (const meta of versions) {
        const { data } = await service.get(scope, name, { version: meta.version });
        expect(sha256Hex(data)).toBe(meta.sha256);
      }
    }
  }
  expect([...seen].sort()).toEqual([...expected.keys()].sort());
}
