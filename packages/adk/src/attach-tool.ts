import {
  type ArtifactMeta,
  type ArtifactService,
  bindArtifacts,
  invalidArgument,
  invalidServiceReply,
  isArtifactError,
} from "@artifact-kit/core";
import {
  BaseTool,
  type LlmRequest,
  type RunAsyncToolRequest,
  type ToolProcessLlmRequest,
} from "@google/adk";
import {
  type AttachmentBounds,
  type AttachmentLimit,
  planAttachments,
  resolveAttachmentBounds,
} from "./attach-bounds.js";
import { partForModel } from "./attach-part.js";
import { headChecked } from "./checked.js";
import { type AdkSessionKey, invocationKey, locate, USER_NAMESPACE_PREFIX } from "./location.js";
import { fromAdkVersion, toAdkVersion } from "./version.js";

type Declaration = ReturnType<BaseTool["_getDeclaration"]>;

/** One artifact the tool resolved: exact name and version, and what its bytes must be. */
export interface ResolvedAttachment {
  readonly name: string;
  readonly version: number;
  readonly mimeType: string;
  readonly size: number;
  readonly sha256: string;
}

/** The tool's reply, which is all the session history keeps: metadata, never bytes. */
export interface AttachmentReply {
  readonly attached: ResolvedAttachment[];
  readonly missing: string[];
  readonly skipped: Array<ResolvedAttachment & { readonly limit: AttachmentLimit }>;
  readonly status: string;
}

const STATUS =
  "The attached artifacts are in the next model request only. To see them again later, call load_artifacts again.";

/**
 * A hardened `LoadArtifactsTool`: the model names artifacts; the tool resolves each to its
 * exact committed version in the invocation's session (or the user's scope) and replies with
 * metadata only; before the next model request, that exact version is read, checked against
 * the recorded scope, name, size, MIME type and SHA-256, and attached to that request alone.
 * Bounds (count, per-item and total bytes, overflow policy) are checked at both steps.
 */
export class VerifiedLoadArtifactsTool extends BaseTool {
  readonly #service: ArtifactService;
  readonly bounds: AttachmentBounds;

  constructor(service: ArtifactService, bounds: Partial<AttachmentBounds> = {}) {
    super({
      name: "load_artifacts",
      description:
        "Attaches artifacts to the next model request only. Call it each time you need their content.",
    });
    this.#service = service;
    this.bounds = resolveAttachmentBounds(bounds);
  }

  override _getDeclaration(): Declaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: "OBJECT",
        properties: {
          artifact_names: {
            type: "ARRAY",
            items: { type: "STRING" },
            description: "The names of the artifacts to attach.",
          },
        },
      },
    } as unknown as Declaration;
  }

  override async runAsync({ args, toolContext }: RunAsyncToolRequest): Promise<AttachmentReply> {
    const names = requestedNames(args.artifact_names);
    const key = invocationKey(toolContext.invocationContext);
    const found: ResolvedAttachment[] = [];
    const missing: string[] = [];
    for (const name of names) {
      const resolved = await this.#resolve(key, name);
      if (resolved) found.push(resolved);
      else missing.push(name);
    }
    const plan = planAttachments(found, this.bounds);
    return {
      attached: plan.attach,
      missing,
      skipped: plan.skipped.map(({ item, limit }) => ({ ...item, limit })),
      status: STATUS,
    };
  }

  override async processLlmRequest(request: ToolProcessLlmRequest): Promise<void> {
    await super.processLlmRequest(request);
    const { toolContext, llmRequest } = request;
    // The model is told what it may ask for, as ADK's tool does, when the runner can list.
    if (toolContext.invocationContext.artifactService !== undefined) {
      const keys = await toolContext.listArtifacts();
      if (keys.length > 0) appendInstruction(llmRequest, availableArtifacts(keys));
    }
    const reply = this.#replyJustReceived(llmRequest);
    if (reply === undefined) return;
    // The reply was checked against the bounds; the bytes are checked again as read.
    planAttachments(reply.attached, { ...this.bounds, overflow: "error" });
    const key = invocationKey(toolContext.invocationContext);
    for (const expected of reply.attached) {
      const part = await this.#readVerified(key, expected);
      llmRequest.contents.push({
        role: "user",
        parts: [{ text: `Artifact ${expected.name} (version ${expected.version}) is:` }, part],
      });
    }
  }

  /** The name as given, else (as ADK does) in the user's scope; undefined if in neither. */
  async #resolve(key: AdkSessionKey, name: string): Promise<ResolvedAttachment | undefined> {
    const candidates = name.startsWith(USER_NAMESPACE_PREFIX)
      ? [name]
      : [name, USER_NAMESPACE_PREFIX + name];
    for (const candidate of candidates) {
      const { scope, name: stored } = locate(key, candidate);
      try {
        return describe(candidate, await headChecked(this.#service, scope, stored, "latest"));
      } catch (error) {
        if (!isArtifactError(error, "not_found")) throw error;
      }
    }
    return undefined;
  }

  async #readVerified(key: AdkSessionKey, expected: ResolvedAttachment) {
    const { scope, name } = locate(key, expected.name);
    const capability = bindArtifacts(this.#service, scope, { allow: ["attach"] });
    // Core's attach checks scope, name, version, and the bytes against size and SHA-256.
    const attachment = await capability.attach(name, { version: fromAdkVersion(expected.version) });
    const same =
      attachment.size === expected.size &&
      attachment.sha256 === expected.sha256 &&
      attachment.mimeType === expected.mimeType;
    if (!same)
      throw invalidServiceReply(`artifact ${expected.name} is not the version the tool resolved`);
    return partForModel(attachment, expected.name);
  }

  /** This tool's reply, when it is the newest content of the request (so, the next request only). */
  #replyJustReceived(llmRequest: LlmRequest): AttachmentReply | undefined {
    const last = llmRequest.contents.at(-1);
    if (last?.role !== "user") return undefined;
    const response = last.parts?.find((part) => part.functionResponse?.name === this.name)
      ?.functionResponse?.response;
    return isReply(response) ? response : undefined;
  }
}

function requestedNames(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
    throw invalidArgument("artifact_names", "must be a list of artifact names");
  }
  return [...new Set(value as string[])];
}

function describe(name: string, meta: ArtifactMeta): ResolvedAttachment {
  const { mimeType, size, sha256 } = meta;
  return { name, version: toAdkVersion(meta.version), mimeType, size, sha256 };
}

function isReply(value: unknown): value is AttachmentReply {
  if (typeof value !== "object" || value === null) return false;
  const { attached } = value as { attached?: unknown };
  return Array.isArray(attached) && attached.every(isResolvedAttachment);
}

function isResolvedAttachment(value: unknown): value is ResolvedAttachment {
  if (typeof value !== "object" || value === null) return false;
  const { name, version, mimeType, size, sha256 } = value as Record<string, unknown>;
  const texts = [name, mimeType, sha256].every((field) => typeof field === "string");
  return texts && typeof version === "number" && typeof size === "number";
}

function availableArtifacts(keys: readonly string[]): string {
  return `You have a list of artifacts:\n  ${JSON.stringify(keys)}\n\nTo read any of them, call \`load_artifacts\` with their names; their content is attached to the next request only, so call it again whenever you need it.`;
}

function appendInstruction(llmRequest: LlmRequest, instruction: string): void {
  llmRequest.config ??= {};
  const current = llmRequest.config.systemInstruction;
  llmRequest.config.systemInstruction = current
    ? `${String(current)}\n\n${instruction}`
    : instruction;
}
