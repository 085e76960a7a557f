import { isArtifactError } from "../errors.js";
import { sha256Hex } from "../scope.js";
import { hasTransfer } from "../transfer.js";
import type { ArtifactMeta, ArtifactService, Scope } from "../types.js";
import { fail } from "./expect.js";
import type { HistoryEntry, SequentialSpec } from "./linearizability.js";
import { byUtf8Bytes } from "./model.js";

// The operations of a linearizability history on one scope, how each is run against a
// service and reduced to a comparable output, and the sequential specification they are
// checked against (the reference model's rules, on a state small enough to memoize).

/** Names the histories work on: one inside the other's prefix, so listings must order them. */
export const HISTORY_NAMES: readonly string[] = Object.freeze(["lin", "lin/x"]);

export type HistoryOp =
  | { readonly kind: "put"; readonly name: string; readonly tag: number }
  | { readonly kind: "get"; readonly name: string; readonly version: number | "latest" }
  | { readonly kind: "head"; readonly name: string }
  | { readonly kind: "download"; readonly name: string }
  | {
      readonly kind: "delete";
      readonly name: string;
      readonly selector: number | "latest" | "all";
      /**
       * Set by the checker on a delete("latest"): the versions of this name that puts running
       * at the same time published (see historySpec).
       */
      readonly concurrentPuts?: readonly number[];
    }
  | { readonly kind: "listVersions"; readonly name: string }
  | { readonly kind: "listNames" }
  | { readonly kind: "list" };

/** A version as a history sees it: its number and the tag of the payload it holds. */
export type Seen = readonly [version: number, tag: number];

export type HistoryOutput =
  | { readonly put: number }
  | { readonly read: Seen | "not_found" }
  | { readonly deleted: boolean }
  | { readonly versions: readonly Seen[] }
  | { readonly names: readonly string[] }
  | { readonly listed: readonly (readonly [string, number])[] | "result_limit_exceeded" };

/** The payload of tag `tag`: every byte is the tag, so a torn or mixed read cannot pass. */
export function payloadOf(tag: number): Uint8Array {
  return new Uint8Array(48 + tag * 16).fill(tag);
}

const digests = new Map<string, number>();
/** The tag whose payload has this digest (0 when none does: a record of bytes never put). */
export function tagOf(sha256: string): number {
  if (digests.size === 0) {
    for (let tag = 1; tag <= 255; tag++) digests.set(sha256Hex(payloadOf(tag)), tag);
  }
  return digests.get(sha256) ?? 0;
}

/** The sha256 of tag `tag`'s payload. */
export const digestOfTag = (tag: number): string => sha256Hex(payloadOf(tag));

const seen = (meta: ArtifactMeta): Seen => [meta.version, tagOf(meta.sha256)];

/** The bytes are exactly one tag's payload; anything else fails the law on the spot. */
function tagOfBytes(data: Uint8Array, meta: ArtifactMeta, what: string): number {
  const tag = data[0] ?? 0;
  const whole = Buffer.from(data).equals(Buffer.from(payloadOf(tag)));
  if (!whole || tagOf(meta.sha256) !== tag) {
    fail(`${what}: read ${data.byteLength} bytes that are no payload put whole (a torn read)`);
  }
  return tag;
}

async function readAll(service: ArtifactService, scope: Scope, name: string, what: string) {
  if (!hasTransfer(service)) return fail(`${what}: the service has no openDownload`);
  const source = await service.openDownload(scope, name);
  const pieces: Uint8Array[] = [];
  try {
    for (let piece = await source.read(); piece; piece = await source.read()) pieces.push(piece);
  } catch (error) {
    // A download answers for the moment it opened; reading on demand, its pieces may then
    // be not_found if that version is deleted while it reads (never other bytes).
    if (isArtifactError(error, "not_found")) return seen(source.meta);
    throw error;
  }
  const data = Buffer.concat(pieces);
  return [source.meta.version, tagOfBytes(data, source.meta, what)] as const;
}

/** Runs `op` against `service`; not_found answers are outputs, other errors are thrown. */
export async function runHistoryOp(
  service: ArtifactService,
  scope: Scope,
  op: HistoryOp,
  limit: number,
): Promise<HistoryOutput> {
  const what = describeOp(op);
  const orNotFound = async <T>(read: () => Promise<T>): Promise<T | "not_found"> =>
    read().catch((error: unknown) => {
      if (isArtifactError(error, "not_found")) return "not_found" as const;
      throw error;
    });
  switch (op.kind) {
    case "put":
      return { put: (await service.put(scope, op.name, payloadOf(op.tag))).version };
    case "get":
      return {
        read: await orNotFound(async () => {
          const artifact = await service.get(scope, op.name, { version: op.version });
          return [artifact.version, tagOfBytes(artifact.data, artifact, what)] as const;
        }),
      };
    case "head":
      return { read: await orNotFound(async () => seen(await service.head(scope, op.name))) };
    case "download":
      return { read: await orNotFound(() => readAll(service, scope, op.name, what)) };
    case "delete": {
      const done = await orNotFound(() => service.delete(scope, op.name, op.selector));
      return { deleted: done !== "not_found" };
    }
    case "listVersions": {
      const page = await service.listVersions(scope, op.name, { limit });
      return { versions: page.items.map(seen) };
    }
    case "listNames":
      return { names: [...(await service.listNames(scope, { limit })).items] };
    case "list": {
      const listed = await service.list(scope).catch((error: unknown) => {
        if (isArtifactError(error, "result_limit_exceeded"))
          return "result_limit_exceeded" as const;
        throw error;
      });
      return {
        listed:
          listed === "result_limit_exceeded" ? listed : listed.map((m) => [m.name, m.version]),
      };
    }
  }
}

export function describeOp(op: HistoryOp): string {
  switch (op.kind) {
    case "put":
      return `put(${JSON.stringify(op.name)}, payload ${op.tag})`;
    case "get":
      return `get(${JSON.stringify(op.name)}, ${op.version})`;
    case "delete":
      return `delete(${JSON.stringify(op.name)}, ${op.selector})`;
    case "listNames":
    case "list":
      return `${op.kind}()`;
    default:
      return `${op.kind}(${JSON.stringify(op.name)})`;
  }
}

/**
 * Per name: every version published so far and the live ones, ascending. A put's version
 * need only be new here: versions are allocated before they are published, so two
 * concurrent puts may publish out of order; that allocation follows real time is checked on
 * the history itself (`expectVersionsFollowRealTime`).
 */
type HistoryState = Readonly<
  Record<string, { readonly published: readonly number[]; readonly live: readonly Seen[] }>
>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The reference model's rules as a sequential specification over one scope. */
export function historySpec(limits: {
  pageLimit: number;
  legacyListLimit: number;
}): SequentialSpec<HistoryState, HistoryOp, HistoryOutput> {
  const entry = (state: HistoryState, name: string) =>
    state[name] ?? { published: [] as readonly number[], live: [] as readonly Seen[] };
  const liveNames = (state: HistoryState) =>
    Object.keys(state)
      .filter((name) => entry(state, name).live.length > 0)
      .sort(byUtf8Bytes);
  const without = (live: readonly Seen[], version: number | undefined) =>
    live.filter(([v]) => v !== version);
  // What a delete may leave. delete("latest") finds the latest version, then removes it: like
  // a put's version, which need only be new, a put running at the same time may publish above
  // it in between, so it removes the latest live version or the latest of those no concurrent
  // put published. Never an older one, never two.
  const remainders = (live: readonly Seen[], op: HistoryOp & { kind: "delete" }) => {
    if (op.selector === "all") return [[]];
    if (op.selector !== "latest") return [without(live, op.selector)];
    const unseen = op.concurrentPuts ?? [];
    const seenLatest = live.filter(([v]) => !unseen.includes(v)).at(-1)?.[0];
    const latest = live.at(-1)?.[0];
    return seenLatest === undefined || seenLatest === latest
      ? [without(live, latest)]
      : [without(live, latest), without(live, seenLatest)];
  };
  return {
    initial: {},
    key: (state) =>
      JSON.stringify(
        Object.keys(state)
          .sort()
          .map((name) => [name, state[name]]),
      ),
    step(state, op, output) {
      if (op.kind === "listNames") {
        return same(output, { names: liveNames(state).slice(0, limits.pageLimit) }) ? [state] : [];
      }
      if (op.kind === "list") {
        const all = liveNames(state).flatMap((name) =>
          entry(state, name).live.map(([version]) => [name, version]),
        );
        const listed = all.length > limits.legacyListLimit ? "result_limit_exceeded" : all;
        return same(output, { listed }) ? [state] : [];
      }
      const { published, live } = entry(state, op.name);
      switch (op.kind) {
        case "put": {
          const version = "put" in output ? output.put : 0;
          if (version < 1 || published.includes(version)) return [];
          return [
            {
              ...state,
              [op.name]: {
                published: [...published, version].sort((a, b) => a - b),
                live: [...live, [version, op.tag] as const].sort(([a], [b]) => a - b),
              },
            },
          ];
        }
        case "get":
        case "head":
        case "download": {
          const pinned = "version" in op && op.version !== "latest";
          const expected = pinned ? live.find(([v]) => v === op.version) : live.at(-1);
          return same(output, { read: expected ?? "not_found" }) ? [state] : [];
        }
        case "delete":
          return remainders(live, op)
            .filter((rest) => same(output, { deleted: rest.length < live.length }))
            .map((rest) => ({ ...state, [op.name]: { published, live: rest } }));
        case "listVersions":
          return same(output, { versions: live.slice(0, limits.pageLimit) }) ? [state] : [];
      }
    },
  };
}

export function describeOutput(output: HistoryOutput): string {
  return JSON.stringify(output);
}

/** Every version an operation's output shows of `name`. */
function versionsShown(op: HistoryOp, output: HistoryOutput, name: string): number[] {
  if ("put" in output) return op.kind === "put" && op.name === name ? [output.put] : [];
  if ("read" in output) {
    return "name" in op && op.name === name && output.read !== "not_found" ? [output.read[0]] : [];
  }
  if ("versions" in output) {
    return "name" in op && op.name === name ? output.versions.map(([v]) => v) : [];
  }
  if ("listed" in output && output.listed !== "result_limit_exceeded") {
    return output.listed.filter(([n]) => n === name).map(([, v]) => v);
  }
  return [];
}

/**
 * Versions are allocated in real-time order: a put invoked after an operation returned
 * answers a version above every version that operation showed of the same name.
 */
export function expectVersionsFollowRealTime(
  history: readonly HistoryEntry<HistoryOp, HistoryOutput>[],
  describe: (entry: HistoryEntry<HistoryOp, HistoryOutput>) => string,
): void {
  for (const put of history) {
    if (put.input.kind !== "put" || !("put" in put.output)) continue;
    const { name } = put.input;
    const version = put.output.put;
    for (const before of history) {
      if (before.returnedAt > put.invokedAt) continue;
      const above = versionsShown(before.input, before.output, name).find((v) => v >= version);
      if (above !== undefined) {
        fail(
          `${describe(put)} answered version ${version}, but ${describe(before)} had already shown version ${above}: versions must grow past every version allocated before`,
        );
      }
    }
  }
}
