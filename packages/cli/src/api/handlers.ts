import type { IncomingMessage } from "node:http";
import {
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  capabilityDenied,
  type Deadline,
  invalidArgument,
  isArtifactError,
  unavailable,
  validateOptionKeys,
} from "@artifact-kit/core";
import { confirmationToken, deleteInventory, takeInventory } from "../inventory.js";
import { readJsonBody } from "./body.js";
import type { ResourceProvider } from "./options.js";
import type { ApiRoute } from "./route.js";

export interface HandlerContext {
  /** With its listings checked (see pages.ts). */
  service: ArtifactService;
  resourceProvider: ResourceProvider | undefined;
  maxBodyBytes: number;
}

/** One request's deadline, for the store (`deadline`) and the provider (`signal`). */
interface RequestBudget {
  deadline: Deadline;
  signal: AbortSignal;
}

/** A version as the API shows it: never bytes, never the user's custom metadata. */
function publicVersion(meta: ArtifactMeta) {
  const { version, mimeType, size, sha256, createdAt } = meta;
  return { version, mimeType, size, sha256, createdAt };
}

/** Asks the resource provider about the exact scope; only "allow" lets the request on. */
async function authorize(
  context: HandlerContext,
  route: ApiRoute,
  signal: AbortSignal,
): Promise<void> {
  if (context.resourceProvider === undefined) return;
  let decision: unknown;
  try {
    decision = await context.resourceProvider({
      scope: route.scope,
      operation: route.operation,
      signal,
    });
  } catch (error) {
    throw unavailable("the resource provider failed", error);
  }
  if (decision !== "allow") {
    throw capabilityDenied("this scope is forbidden to this caller", { reason: "forbidden" });
  }
}

/**
 * A reply the adapter gave for another scope or name, or a malformed one, is refused as
 * unavailable: it is never relabelled as the scope that was asked for.
 */
async function refuseForeignReplies<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isArtifactError(error, "invalid_service_reply")) {
      throw unavailable("the store answered with a record it was not asked for", error);
    }
    throw error;
  }
}

export async function handle(
  context: HandlerContext,
  route: ApiRoute,
  request: IncomingMessage,
  { deadline, signal }: RequestBudget,
): Promise<unknown> {
  const { service } = context;
  await authorize(context, route, signal);
  // The rest of the deadline, handed to every store call (checked before each commit).
  const within = () => deadline.toRequestOptions();
  switch (route.operation) {
    case "listNames":
      return refuseForeignReplies(async () => {
        const options = { ...within(), ...pageOptions(route.limit, route.cursor) };
        const page = await service.listNames(route.scope, options);
        return { scope: route.scope, items: page.items, ...cursorOf(page.nextCursor) };
      });
    case "listVersions":
      return refuseForeignReplies(async () => {
        const options = { ...within(), ...pageOptions(route.limit, route.cursor) };
        const page = await service.listVersions(route.scope, route.name, options);
        return {
          scope: route.scope,
          name: route.name,
          items: page.items.map(publicVersion),
          ...cursorOf(page.nextCursor),
        };
      });
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

/** The delete body must be exactly `{"confirm": "<the token GET on the scope gave>"}`. */
async function readConfirmation(request: IncomingMessage, maxBodyBytes: number): Promise<string> {
  const body = validateOptionKeys(await readJsonBody(request, maxBodyBytes), ["confirm"], "body");
  if (typeof body.confirm !== "string") {
    throw invalidArgument("confirm", "must be the token a GET on this scope answered");
  }
  return body.confirm;
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

function pageOptions<C>(limit: number | undefined, cursor: C | undefined) {
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(cursor === undefined ? {} : { cursor }),
  };
}

function cursorOf<C>(nextCursor: C | undefined): { nextCursor?: C } {
  return nextCursor === undefined ? {} : { nextCursor };
}
