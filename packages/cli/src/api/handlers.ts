import type { IncomingMessage } from "node:http";
import {
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  invalidArgument,
  isArtifactError,
  type Scope,
  sameScope,
  validateOptionKeys,
  validateScope,
} from "@artifact-kit/core";
import { deleteInventory, takeInventory } from "../inventory.js";
import { readJsonBody } from "./body.js";
import type { ResourceProvider } from "./options.js";
import type { ApiRoute } from "./route.js";

export interface HandlerContext {
  /** With its listings checked (see pages.ts). */
  service: ArtifactService;
  resourceProvider: ResourceProvider | undefined;
  maxBodyBytes: number;
}

/** A version as the API shows it: never bytes, never the user's custom metadata. */
function publicVersion(meta: ArtifactMeta) {
  const { version, mimeType, size, sha256, createdAt } = meta;
  return { version, mimeType, size, sha256, createdAt };
}

/** Asks the resource provider about the exact scope; only "allow" lets the request on. */
async function authorize(context: HandlerContext, route: ApiRoute): Promise<void> {
  if (context.resourceProvider === undefined) return;
  let decision: unknown;
  try {
    decision = await context.resourceProvider({ scope: route.scope, operation: route.operation });
  } catch (error) {
    throw new ArtifactError("unavailable", "the resource provider failed", { cause: error });
  }
  if (decision !== "allow") {
    throw new ArtifactError("capability_denied", "this scope is forbidden to this caller", {
      detail: { reason: "forbidden" },
    });
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
      throw new ArtifactError(
        "unavailable",
        "the store answered with a record it was not asked for",
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

export async function handle(
  context: HandlerContext,
  route: ApiRoute,
  request: IncomingMessage,
): Promise<unknown> {
  const { service } = context;
  await authorize(context, route);
  switch (route.operation) {
    case "listNames":
      return refuseForeignReplies(async () => {
        const options = pageOptions(route.limit, route.cursor);
        const page = await service.listNames(route.scope, options);
        return { scope: route.scope, items: page.items, ...cursorOf(page.nextCursor) };
      });
    case "listVersions":
      return refuseForeignReplies(async () => {
        const options = pageOptions(route.limit, route.cursor);
        const page = await service.listVersions(route.scope, route.name, options);
        return {
          scope: route.scope,
          name: route.name,
          items: page.items.map(publicVersion),
          ...cursorOf(page.nextCursor),
        };
      });
    case "deleteScope": {
      await expectConfirmation(request, route.scope, context.maxBodyBytes);
      return refuseForeignReplies(async () => {
        const inventory = await takeInventory(service, route.scope);
        await deleteInventory(service, inventory);
        const { names, versions, bytes } = inventory;
        return { scope: route.scope, deleted: { names, versions, bytes } };
      });
    }
  }
}

/** The delete body must be exactly `{"confirm": <the scope of the path>}`. */
async function expectConfirmation(
  request: IncomingMessage,
  scope: Scope,
  maxBodyBytes: number,
): Promise<void> {
  const body = validateOptionKeys(await readJsonBody(request, maxBodyBytes), ["confirm"], "body");
  let confirmed: boolean;
  try {
    confirmed = sameScope(validateScope(body.confirm, "confirm"), scope);
  } catch {
    confirmed = false;
  }
  if (!confirmed) throw invalidArgument("confirm", "must be the scope of the path");
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
