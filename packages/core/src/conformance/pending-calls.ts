// The calls of the services under test that a law started and that have not settled, so that
// a law that never settles says which call hangs (and since when), not only that one does:
// for a third party's adapter that is where the bug is.

import type { RunStoreSubject } from "./run-store/subject.js";
import type { ServiceSubject } from "./subject.js";

interface PendingCall {
  readonly label: string;
  readonly since: number;
}

/** Longest rendering of one argument in a call's label. */
const ARGUMENT_CHARS = 80;

export class PendingCalls {
  readonly #calls = new Set<PendingCall>();

  /**
   * `service` with each of its methods counted while the promise it returned is pending. The
   * methods run on `service` itself (private fields and all); a frozen object's methods, which
   * a proxy must hand out as they are, are not counted.
   */
  watch<T extends object>(service: T, owner: string): T {
    const wrapped = new Map<PropertyKey, unknown>();
    return new Proxy(service, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        const own = Object.getOwnPropertyDescriptor(target, property);
        if (own && !own.configurable && !own.writable) return value;
        if (!wrapped.has(property)) {
          const method = value as (...args: unknown[]) => unknown;
          wrapped.set(property, (...args: unknown[]) =>
            this.track(
              `${owner}.${String(property)}(${args.map(brief).join(", ")})`,
              Reflect.apply(method, target, args),
            ),
          );
        }
        return wrapped.get(property);
      },
    });
  }

  /**
   * `subject` with the object under test and every one its hooks open watched, its other
   * hooks kept; `roles` says which member is which (SERVICE_SUBJECT_ROLES for the artifact
   * kit, RUN_STORE_SUBJECT_ROLES for the run-store kit).
   */
  watchSubject<S extends object>(subject: S, roles: HookRoles<S>): S {
    const watched: { [K in keyof S]?: unknown } = {};
    for (const [name, role] of Object.entries(roles) as [keyof S & string, HookRole][]) {
      const member: unknown = subject[name];
      if (member === undefined) continue;
      if (role === "watched") {
        watched[name] = this.watch(member as object, name);
      } else if (typeof member !== "function") {
        watched[name] = member;
      } else {
        // Bound: a subject may be a class instance whose hooks use its own fields.
        const call = () => member.call(subject) as unknown;
        watched[name] =
          role === "opens"
            ? async () =>
                this.watch((await this.track(`subject.${name}()`, call())) as object, name)
            : role === "runs"
              ? () => this.track(`subject.${name}()`, call())
              : member.bind(subject);
      }
    }
    return watched as S;
  }

  /** `result`, counted while it is a pending promise. */
  track<T>(label: string, result: T): T {
    if (!isThenable(result)) return result;
    const call = { label, since: Date.now() };
    this.#calls.add(call);
    const settled = () => {
      this.#calls.delete(call);
    };
    result.then(settled, settled);
    return result;
  }

  /** The calls pending now, oldest first, for a failure report. */
  describe(): string {
    if (this.#calls.size === 0) {
      return "no call of a service was pending (a sink's, a source's or the law's own wait was)";
    }
    const now = Date.now();
    return [...this.#calls]
      .map((call) => `${call.label}, pending for ${now - call.since} ms`)
      .join("; ");
  }
}

/**
 * What watching does with each member of a subject. Every member is named, so that a hook
 * added to a subject's interface is a compile error here until it is decided, never dropped.
 */
export type HookRoles<S> = { readonly [K in keyof Required<S>]: HookRole };

/**
 * The object under test, a hook that opens another one (watched too), a hook whose own call
 * is counted, or one kept as it is.
 */
type HookRole = "watched" | "opens" | "runs" | "as-is";

export const SERVICE_SUBJECT_ROLES: HookRoles<ServiceSubject> = {
  service: "watched",
  reopen: "opens",
  openAnother: "opens",
  openNeighbour: "opens",
  maintain: "runs",
  corrupt: "as-is",
  faults: "as-is",
  cleanup: "as-is",
};

export const RUN_STORE_SUBJECT_ROLES: HookRoles<RunStoreSubject> = {
  store: "watched",
  reopen: "opens",
  peer: "opens",
  sibling: "opens",
  cleanup: "as-is",
};

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as Partial<PromiseLike<unknown>> | null)?.then === "function";
}

/** One argument as a report shows it: bytes by their count, the rest as short JSON. */
function brief(value: unknown): string {
  if (value instanceof Uint8Array) return `<${value.byteLength} bytes>`;
  if (typeof value === "function") return "<function>";
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_key, inner: unknown) =>
      inner instanceof Uint8Array
        ? `<${inner.byteLength} bytes>`
        : typeof AbortSignal !== "undefined" && inner instanceof AbortSignal
          ? "<AbortSignal>"
          : inner,
    );
  } catch {
    text = undefined;
  }
  text ??= String(value);
  return text.length > ARGUMENT_CHARS ? `${text.slice(0, ARGUMENT_CHARS - 1)}…` : text;
}
