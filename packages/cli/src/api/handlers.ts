import {
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  capabilityDenied,
  type Deadline,
  hasDownloadUrls,
  invalidArgument,
  isArtifactError,
  type RequestOptions,
  type Scope,
  unavailable,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";
import { confirmationToken, deleteInventory, takeInventory } from "../inventory.js";
import { readJsonBody } from "./body.js";
import { DEFAULT_LINK_TTL_SECONDS, LINKS_PATH, MAX_LINK_TTL_SECONDS, signLink } from "./links.js";
import type { ApiOperation, ResourceProvider } from "./options.js";
import type { ScopeRoute } from "./route.js";
import { checkWithinBound } from "./scope-bound.js";

export interface HandlerContext {
  /** With its listings checked (see pages.ts). */
  service: ArtifactService;
  resourceProvider: ResourceProvider | undefined;
  /** `serve --scope`: the part of the store this server serves. */
  bound: Scope | undefined;
  linkSecret: Buffer;
  maxBodyBytes: number;
  maxUploadBytes: number;
  /** Told of every failure on the server's side, with its cause (see DeveloperApiOptions). */
  onServerError: ((error: Error) => void) | undefined;
}

/** One request's deadline, for the store (`deadline`) and the provider (`signal`). */
export interface RequestBudget {
  deadline: Deadline;
  signal: AbortSignal;
}

/** A version as a listing shows it: never bytes, never the user's custom metadata. */
export function publicVersion(meta: ArtifactMeta) {
  const { version, mimeType, size, sha256, createdAt } = meta;
  return { version, mimeType, size, sha256, createdAt };
}

/** Asks the resource provider about the exact scope; only "allow" lets the request on. */
export async function isAllowed(
  context: HandlerContext,
  scope: Scope,
  operation: ApiOperation,
  signal: AbortSignal,
): Promise<boolean> {
  if (context.resourceProvider === undefined) return true;
  try {
    return (await context.resourceProvider({ scope, operation, signal })) === "allow";
  } catch (error) {
    throw unavailable("the resource provider failed", error);
  }
}

/** The bound first (no provider call for a scope outside it), then the provider. */
export async function authorize(
  context: HandlerContext,
  route: ScopeRoute,
  signal: AbortSignal,
): Promise<void> {
  checkWithinBound(context.bound, route.scope);
  if (!(await isAllowed(context, route.scope, route.operation, signal))) {
    throw capabilityDenied("this scope is forbidden to this caller", { reason: "forbidden" });
  }
}

/**
 * A reply the adapter gave for another scope or name, or a malformed one, is refused as
 * unavailable: it is never relabelled as the scope that was asked for.
 */
export async function refuseForeignReplies<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isArtifactError(error, "invalid_service_reply")) {
      throw unavailable("the store answered with a record it was not asked for", error);
    }
    throw error;
  }
}

type JsonRoute = Exclude<ScopeRoute, { operation: "download" | "upload" }>;

export async function handle(
  context: HandlerContext,
  route: JsonRoute,
  request: Request,
  { deadline, signal }: RequestBudget,
): Promise<unknown> {
  const { service } = context;
  await authorize(context, route, signal);
  // The rest of the deadline, handed to every store call (checked before each commit).
  const within = () => deadline.toRequestOptions();
  switch (route.operation) {
    case "listNames":
      return refuseForeignReplies(async () => {
        const { limit, cursor, prefix } = route;
        const options = { ...within(), ...defined({ limit, cursor, prefix }) };
        const page = await service.listNames(route.scope, options);
        return {
          scope: route.scope,
          items: page.items,
          ...defined({ nextCursor: page.nextCursor }),
        };
      });
    case "listVersions":
      return refuseForeignReplies(async () => {
        const options = { ...within(), ...defined({ limit: route.limit, cursor: route.cursor }) };
        const page = await service.listVersions(route.scope, route.name, options);
        return {
          scope: route.scope,
          name: route.name,
          items: page.items.map(publicVersion),
          ...defined({ nextCursor: page.nextCursor }),
        };
      });
    case "getVersion":
      return refuseForeignReplies(async () => {
        const meta = await service.head(route.scope, route.name, {
          ...within(),
          version: route.version,
        });
        return {
          scope: route.scope,
          name: route.name,
          ...publicVersion(meta),
          metadata: meta.metadata,
        };
      });
    case "createLink": {
      const seconds = await readLinkRequest(request, context.maxBodyBytes);
      return refuseForeignReplies(async () => {
        const meta = await service.head(route.scope, route.name, {
          ...within(),
          version: route.version,
        });
        return createLink(context, route.scope, route.name, meta.version, seconds, within());
      });
    }
    case "deleteVersions":
      await service.delete(route.scope, route.name, route.selector, within());
      return { scope: route.scope, name: route.name, deleted: route.selector };
    case "inspectScope":
      return refuseForeignReplies(async () => {
        const inventory = await takeInventory(service, route.scope, within);
        const { names, versions, bytes } = inventory;
        return {
          scope: route.scope,
          names,
          versions,
          bytes,
          confirm: confirmationToken(inventory),
        };
      });
    case "deleteScope": {
      const confirm = await readConfirmation(request, context.maxBodyBytes);
      return refuseForeignReplies(async () => {
        const inventory = await takeInventory(service, route.scope, within);
        if (confirm !== confirmationToken(inventory)) throw staleConfirmation();
        await deleteInventory(service, inventory, within);
        const { names, versions, bytes } = inventory;
        return { scope: route.scope, deleted: { names, versions, bytes } };
      });
    }
  }
}

/**
 * The backend's own URL when the store makes them and the expiry is within its bound (the
 * bytes then flow from the backend, not through serve); else a link serve signs itself.
 */
async function createLink(
  context: HandlerContext,
  scope: Scope,
  name: string,
  version: number,
  seconds: number,
  options: RequestOptions,
): Promise<{ signedBy: "backend" | "serve"; url?: string; path?: string; expiresAt: number }> {
  const { service } = context;
  const bound = service.capabilities().downloadUrls?.maxExpiresInSeconds ?? 0;
  if (hasDownloadUrls(service) && seconds <= bound) {
    const made = await service.createDownloadUrl(scope, name, {
      ...options,
      version,
      expiresInSeconds: seconds,
    });
    return { signedBy: "backend", url: made.url, expiresAt: made.expiresAt };
  }
  const expiresAt = Date.now() + seconds * 1000;
  const path = `${LINKS_PATH}${signLink(context.linkSecret, { scope, name, version, expiresAt })}`;
  return { signedBy: "serve", path, expiresAt };
}

/** The delete body must be exactly `{"confirm": "<the token GET on the scope gave>"}`. */
async function readConfirmation(request: Request, maxBodyBytes: number): Promise<string> {
  const body = validateOptionKeys(await readJsonBody(request, maxBodyBytes), ["confirm"], "body");
  if (typeof body.confirm !== "string") {
    throw invalidArgument("confirm", "must be the token a GET on this scope answered");
  }
  return body.confirm;
}

/** `{"expiresInSeconds": N}` (1..7 days), or an empty body for the default 15 minutes. */
async function readLinkRequest(request: Request, maxBodyBytes: number): Promise<number> {
  if (request.headers.get("content-length") === "0" || request.body === null) {
    return DEFAULT_LINK_TTL_SECONDS;
  }
  const body = validateOptionKeys(
    await readJsonBody(request, maxBodyBytes),
    ["expiresInSeconds"],
    "body",
  );
  if (body.expiresInSeconds === undefined) return DEFAULT_LINK_TTL_SECONDS;
  const seconds = validatePositiveInteger(body.expiresInSeconds, "expiresInSeconds");
  if (seconds > MAX_LINK_TTL_SECONDS) {
    throw invalidArgument("expiresInSeconds", `must be at most ${MAX_LINK_TTL_SECONDS}`);
  }
  return seconds;
}

/** The token was for the scope as it was: it has changed since (or it is another's). */
function staleConfirmation(): ArtifactError {
  const failure = invalidArgument(
    "confirm",
    "does not match this scope as it is now: GET the scope again and review it",
  );
  return new ArtifactError(failure.code, failure.message, {
    detail: { ...failure.detail, reason: "stale_confirmation" },
  });
}

/** The entries whose value is not undefined (exactOptionalPropertyTypes). */
export function defined<T extends object>(
  entries: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
