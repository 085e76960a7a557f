import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectTrue } from "../expect.js";
import { readToEnd } from "./transfer-support.js";

// The caller's signal is lent for one call (issue 31, fourth round). A caller that gives every
// call of a session one long-lived signal must not find it holding a listener per call once
// the calls settled: the service's listeners are a leak, and any of them that acts on a late
// abort is a change after the fact.

/** An AbortSignal that counts the listeners added to it and not removed since. */
function countingSignal() {
  const signal = new AbortController().signal;
  const live = new Set<string>();
  const ids = new WeakMap<object, number>();
  let next = 0;
  const keyOf = (listener: unknown, options: unknown) => {
    if (listener === null || (typeof listener !== "object" && typeof listener !== "function"))
      return undefined;
    if (!ids.has(listener)) ids.set(listener, next++);
    const capture =
      typeof options === "boolean"
        ? options
        : Boolean((options as { capture?: boolean } | undefined)?.capture);
    return `${ids.get(listener)}:${capture}`;
  };
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  Object.defineProperties(signal, {
    addEventListener: {
      value: (
        type: string,
        listener: Parameters<AbortSignal["addEventListener"]>[1],
        options?: Parameters<AbortSignal["addEventListener"]>[2],
      ) => {
        const key = keyOf(listener, options);
        const until = typeof options === "object" ? options.signal : undefined;
        if (type === "abort" && key !== undefined && !until?.aborted) {
          live.add(key);
          until?.addEventListener("abort", () => live.delete(key), { once: true });
        }
        add(type, listener, options);
      },
    },
    removeEventListener: {
      value: (
        type: string,
        listener: Parameters<AbortSignal["removeEventListener"]>[1],
        options?: Parameters<AbortSignal["removeEventListener"]>[2],
      ) => {
        const key = keyOf(listener, options);
        if (type === "abort" && key !== undefined) live.delete(key);
        remove(type, listener, options);
      },
    },
  });
  return { signal, held: () => live.size + (signal.onabort ? 1 : 0) };
}

const ROUNDS = 3;
/** Listeners a library may still hold for the last calls, released on an event after they settled. */
const SETTLING = 2;
/** Turns of 10 ms given to those listeners to go before they are counted. */
const LETTING_GO_TURNS = 100;

/** Once every call made with one long-lived signal has settled, the signal holds none of the service's listeners. */
async function signalsAreLetGo({ service }: LawContext) {
  const scope = freshScope("signals");
  const calls: [string, (signal: AbortSignal) => Promise<unknown>][] = [
    ["put", (signal) => service.put(scope, "a", Uint8Array.of(1), { signal })],
    [
      "put with a timeout",
      (signal) => service.put(scope, "a", Uint8Array.of(2), { signal, timeoutMs: 60_000 }),
    ],
    [
      "keyed put",
      (signal) => service.put(scope, "a", Uint8Array.of(3), { signal, idempotencyKey: "k" }),
    ],
    [
      "keyed retry",
      (signal) => service.put(scope, "a", Uint8Array.of(3), { signal, idempotencyKey: "k" }),
    ],
    ["get", (signal) => service.get(scope, "a", { signal })],
    ["head", (signal) => service.head(scope, "a", { signal, timeoutMs: 60_000 })],
    [
      "get of a missing name",
      (signal) => service.get(scope, "missing", { signal }).catch(() => undefined),
    ],
    ["listNames", (signal) => service.listNames(scope, { signal })],
    ["listVersions", (signal) => service.listVersions(scope, "a", { signal })],
    ["list", (signal) => service.list(scope, { signal })],
    [
      "listScopes",
      (signal) => service.listScopes({ kind: "session", app: scope.app, user: scope.user, signal }),
    ],
    ["delete", (signal) => service.delete(scope, "a", 1, { signal })],
  ];
  if (declaresTransfer(service, "streamingUpload")) {
    calls.push([
      "upload",
      async (signal) => {
        const upload = await service.openUpload(scope, "b", { signal });
        await upload.write(Uint8Array.of(1));
        await upload.finish();
      },
    ]);
    calls.push([
      "aborted upload",
      async (signal) => {
        const upload = await service.openUpload(scope, "c", { signal, timeoutMs: 60_000 });
        await upload.write(Uint8Array.of(1));
        await upload.abort();
      },
    ]);
  }
  if (declaresTransfer(service, "streamingDownload")) {
    calls.push([
      "download",
      async (signal) => readToEnd(await service.openDownload(scope, "a", { signal })),
    ]);
    calls.push([
      "cancelled download",
      async (signal) => {
        const source = await service.openDownload(scope, "a", { signal, timeoutMs: 60_000 });
        await source.cancel();
      },
    ]);
  }
  calls.push(["delete all", (signal) => service.delete(scope, "a", "all", { signal })]);
  // Three rounds of every call with one signal (from the second round some fail: a key bound
  // to a deleted version, a version already deleted). A backend library may let go of its
  // listener an event after the call settles (a request's "close"): at most the last call or
  // two may still hold one. A listener per call, or per failed call, piles up past that.
  const shared = countingSignal();
  const grew: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [what, call] of calls) {
      const before = shared.held();
      let failed = "";
      await call(shared.signal).catch((error: unknown) => {
        failed = ` (failed: ${String(error)})`;
      });
      if (shared.held() > before) grew.push(`${what}${failed} in round ${round}`);
    }
  }
  // The last calls' libraries let go on events of their own; a loaded machine delays them. A
  // leak never lets go, so waiting for them costs a leaking subject a second and no one else.
  for (let turn = 0; turn < LETTING_GO_TURNS && shared.held() > 0; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expectTrue(
    shared.held() <= SETTLING,
    `${shared.held()} listeners left on one signal after ${ROUNDS * calls.length} settled calls (at most ${SETTLING} may still be letting go); calls that left one: ${grew.join("; ")}`,
  );
}

export const signalLaws = [
  check(
    "deadlines",
    "settled operations (every one, transfers included) let go of the caller's signal: three rounds of them on one long-lived signal leave no pile of listeners",
    signalsAreLetGo,
  ),
];
