import { capabilityDenied } from "@artifact-kit/core";
import type {
  BaseArtifactService,
  SessionArtifactService,
  SessionLoadArtifactRequest,
  SessionSaveArtifactRequest,
} from "@google/adk";
import { type InvocationBinding, requireBoundKey, runBound } from "./binding.js";
import type { AdkSessionKey } from "./location.js";

/**
 * A `BaseArtifactService` whose every call runs under one binding: a request for another
 * app, user or session is refused here, and the service below (the bridge) sees the binding
 * too. Code that reaches it (a tool following `.delegate`) gains nothing beyond the binding.
 */
class BoundArtifactService implements BaseArtifactService {
  readonly #unbound: BaseArtifactService;
  readonly #binding: InvocationBinding;

  constructor(unbound: BaseArtifactService, binding: InvocationBinding) {
    this.#unbound = unbound;
    this.#binding = binding;
  }

  saveArtifact: BaseArtifactService["saveArtifact"] = (request) =>
    this.#call(request, () => this.#unbound.saveArtifact(request));
  loadArtifact: BaseArtifactService["loadArtifact"] = (request) =>
    this.#call(request, () => this.#unbound.loadArtifact(request));
  listArtifactKeys: BaseArtifactService["listArtifactKeys"] = (request) =>
    this.#call(request, () => this.#unbound.listArtifactKeys(request));
  deleteArtifact: BaseArtifactService["deleteArtifact"] = (request) =>
    this.#call(request, () => this.#unbound.deleteArtifact(request));
  listVersions: BaseArtifactService["listVersions"] = (request) =>
    this.#call(request, () => this.#unbound.listVersions(request));
  listArtifactVersions: BaseArtifactService["listArtifactVersions"] = (request) =>
    this.#call(request, () => this.#unbound.listArtifactVersions(request));
  getArtifactVersion: BaseArtifactService["getArtifactVersion"] = (request) =>
    this.#call(request, () => this.#unbound.getArtifactVersion(request));

  #call<T>(request: AdkSessionKey, work: () => Promise<T>): Promise<T> {
    return runBound(this.#binding, async () => {
      requireBoundKey(request);
      return work();
    });
  }
}

/**
 * The session's view of a bound service, shaped as ADK's own scoped service: the session's
 * ids come first and a request may name its own (so a request naming another app, user or
 * session reaches the bound service below and is refused there, instead of being rewritten).
 */
class SessionBoundArtifacts implements SessionArtifactService {
  /** The bound service below, where ADK's scoped service exposes its unbound delegate. */
  readonly delegate: BaseArtifactService;
  readonly #key: AdkSessionKey;

  constructor(delegate: BaseArtifactService, key: AdkSessionKey) {
    this.delegate = delegate;
    this.#key = key;
  }

  saveArtifact(request: SessionSaveArtifactRequest): Promise<number> {
    return this.delegate.saveArtifact({ ...this.#key, ...request });
  }
  loadArtifact(
    request: SessionLoadArtifactRequest,
  ): ReturnType<SessionArtifactService["loadArtifact"]> {
    return this.delegate.loadArtifact({ ...this.#key, ...request });
  }
  listArtifactKeys(): Promise<string[]> {
    return this.delegate.listArtifactKeys({ ...this.#key });
  }
  deleteArtifact(filename: string): Promise<void> {
    return this.delegate.deleteArtifact({ ...this.#key, filename });
  }
  listVersions(filename: string): Promise<number[]> {
    return this.delegate.listVersions({ ...this.#key, filename });
  }
  listArtifactVersions(
    filename: string,
  ): ReturnType<SessionArtifactService["listArtifactVersions"]> {
    return this.delegate.listArtifactVersions({ ...this.#key, filename });
  }
  getArtifactVersion(
    request: SessionLoadArtifactRequest,
  ): ReturnType<SessionArtifactService["getArtifactVersion"]> {
    return this.delegate.getArtifactVersion({ ...this.#key, ...request });
  }
}

/** The unbound service under each view handed out, never reachable from the view itself. */
const unboundOf = new WeakMap<SessionBoundArtifacts, BaseArtifactService>();

/**
 * The session view of `current` (the runner's scoped service, or a view made here) bound to
 * `binding`. The runner's service must be ADK's scoped service: anything else is refused,
 * since its unbound service could not be found and bound.
 */
export function bindSessionService(
  current: SessionArtifactService,
  binding: InvocationBinding,
): SessionBoundArtifacts {
  const unbound =
    current instanceof SessionBoundArtifacts ? unboundOf.get(current) : adkDelegate(current);
  if (unbound === undefined) {
    throw capabilityDenied(
      "the invocation's artifact service is not ADK's scoped service, so it cannot be bound",
    );
  }
  const view = new SessionBoundArtifacts(new BoundArtifactService(unbound, binding), binding.key);
  unboundOf.set(view, unbound);
  return view;
}

/** ADK's ScopedArtifactService keeps the runner's service in a field named `delegate`. */
function adkDelegate(service: SessionArtifactService): BaseArtifactService | undefined {
  const delegate: unknown = (service as { delegate?: unknown }).delegate;
  const methods = ["saveArtifact", "loadArtifact", "listArtifactKeys", "deleteArtifact"] as const;
  const isService =
    typeof delegate === "object" &&
    delegate !== null &&
    methods.every((method) => typeof (delegate as Record<string, unknown>)[method] === "function");
  return isService ? (delegate as BaseArtifactService) : undefined;
}
