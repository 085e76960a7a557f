import {
  type ArtifactEffect,
  type ArtifactMeta,
  type ArtifactService,
  bindArtifacts,
  compareUtf8,
  invalidArgument,
  type PutOptions,
  validateOptionKeys,
} from "@artifact-kit/core";
import type {
  BaseArtifactService,
  DeleteArtifactRequest,
  ListArtifactKeysRequest,
  ListVersionsRequest,
  LoadArtifactRequest,
  SaveArtifactRequest,
} from "@google/adk";
import { currentBinding, requireBoundKey } from "./binding.js";
import { getChecked, headChecked, namesChecked, versionsChecked } from "./checked.js";
import { locate, sessionScope, USER_NAMESPACE_PREFIX, userScope } from "./location.js";
import { readCustomMetadata, readPartRecord, storedMetadata } from "./metadata.js";
import { undefinedIfNotFound } from "./missing.js";
import { optional } from "./optional.js";
import { decodePart, encodePart, type Part } from "./part.js";
import { fromAdkVersion, toAdkVersion } from "./version.js";
import { type AdkArtifactWriter, mutationOf, validateWriter } from "./writer.js";

/** ADK's description of one version (its `ArtifactVersion`, named through its own method). */
export type AdkArtifactVersion = NonNullable<
  Awaited<ReturnType<BaseArtifactService["getArtifactVersion"]>>
>;

export interface AdkBridgeOptions {
  /**
   * A URI a reader can fetch exactly this version's bytes from (`gs://`, `https://`), or
   * undefined when there is none. Reported as `canonicalUri`; ADK's
   * `saveInputBlobsAsArtifacts` then refers the model to it, as with ADK's GCS service.
   */
  readonly canonicalUri?: (meta: ArtifactMeta) => string | undefined;
  /**
   * Makes every put (default: a plain put through core's scoped capability), and every
   * `deleteArtifact` when it has a `delete` (default: a plain delete of every version).
   */
  readonly writer?: AdkArtifactWriter;
}

/**
 * Presents any artifact-kit `ArtifactService` as `@google/adk`'s `BaseArtifactService`.
 * The bridge holds no state of its own; the service stays the caller's to close. Every
 * adapter reply is checked before it reaches ADK, and under `ArtifactScopePlugin` a request
 * for another app, user or session than the running invocation's is `capability_denied`.
 */
export function toAdkArtifactService(
  service: ArtifactService,
  options: AdkBridgeOptions = {},
): BaseArtifactService {
  return new AdkArtifactBridge(service, options);
}

class AdkArtifactBridge implements BaseArtifactService {
  readonly #service: ArtifactService;
  readonly #canonicalUri: AdkBridgeOptions["canonicalUri"];
  readonly #writer: AdkArtifactWriter | undefined;

  constructor(service: ArtifactService, options: AdkBridgeOptions) {
    const { canonicalUri, writer } = validateOptionKeys(
      options,
      ["canonicalUri", "writer"],
      "options",
    );
    if (canonicalUri !== undefined && typeof canonicalUri !== "function") {
      throw invalidArgument("options.canonicalUri", "must be a function of the version's record");
    }
    this.#service = service;
    this.#canonicalUri = options.canonicalUri;
    this.#writer = writer === undefined ? undefined : validateWriter(writer);
  }

  async saveArtifact(request: SaveArtifactRequest): Promise<number> {
    requireBoundKey(request);
    const binding = currentBinding();
    const mutation = mutationOf(request, binding);
    const { data, mimeType, record } = encodePart(request.artifact);
    const options: PutOptions = {
      ...optional("mimeType", mimeType),
      metadata: storedMetadata(record, request.customMetadata),
    };
    // Core's capability (the writer's too) checks the reply (scope, name, size).
    const effect = this.#writer
      ? await this.#writer.put({ ...mutation, data, options })
      : await bindArtifacts(this.#service, mutation.scope, { allow: ["put"] }).put(
          mutation.name,
          data,
          options,
        );
    binding?.recordEffect?.(request.filename, effect);
    return toAdkVersion(effect.version);
  }

  async loadArtifact(request: LoadArtifactRequest): Promise<Part | undefined> {
    requireBoundKey(request);
    const { scope, name } = locate(request, request.filename);
    const version = selectVersion(request.version);
    const artifact = await undefinedIfNotFound(getChecked(this.#service, scope, name, version));
    return artifact && decodePart(artifact, readPartRecord(artifact.metadata));
  }

  async listArtifactKeys(request: ListArtifactKeysRequest): Promise<string[]> {
    requireBoundKey(request);
    const [sessionNames, userNames] = await Promise.all([
      namesChecked(this.#service, sessionScope(request)),
      namesChecked(this.#service, userScope(request)),
    ]);
    const userKeys = userNames.map((name) => `${USER_NAMESPACE_PREFIX}${name}`);
    return [...sessionNames, ...userKeys].sort(compareUtf8);
  }

  async deleteArtifact(request: DeleteArtifactRequest): Promise<void> {
    requireBoundKey(request);
    const binding = currentBinding();
    const mutation = mutationOf(request, binding);
    const record = binding?.recordEffect;
    const onEffect = record && ((effect: ArtifactEffect) => record(request.filename, effect));
    // A writer's delete (the journaled one) goes version by version and reports each removed
    // version. Without one, a tool's delete is recorded version by version too, so core's
    // capability deletes exactly the versions it lists (and checks each record); elsewhere
    // one delete of "all" does.
    const { scope, name } = mutation;
    const deleted: Promise<unknown> = this.#writer?.delete
      ? this.#writer.delete({ ...mutation, ...optional("onEffect", onEffect) })
      : onEffect
        ? bindArtifacts(this.#service, scope, { allow: ["delete"], onEffect }).delete(name, "all")
        : this.#service.delete(scope, name, "all");
    // ADK's services treat deleting a missing artifact as done.
    await undefinedIfNotFound(deleted);
  }

  async listVersions(request: ListVersionsRequest): Promise<number[]> {
    requireBoundKey(request);
    const { scope, name } = locate(request, request.filename);
    const versions = await versionsChecked(this.#service, scope, name);
    return versions.map((meta) => toAdkVersion(meta.version));
  }

  async listArtifactVersions(request: ListVersionsRequest): Promise<AdkArtifactVersion[]> {
    requireBoundKey(request);
    const { scope, name } = locate(request, request.filename);
    const versions = await versionsChecked(this.#service, scope, name);
    return versions.map((meta) => this.#describe(meta));
  }

  async getArtifactVersion(request: LoadArtifactRequest): Promise<AdkArtifactVersion | undefined> {
    requireBoundKey(request);
    const { scope, name } = locate(request, request.filename);
    const version = selectVersion(request.version);
    const meta = await undefinedIfNotFound(headChecked(this.#service, scope, name, version));
    return meta && this.#describe(meta);
  }

  #describe(meta: ArtifactMeta): AdkArtifactVersion {
    return {
      version: toAdkVersion(meta.version),
      mimeType: meta.mimeType,
      ...optional("canonicalUri", this.#canonicalUri?.(meta)),
      ...optional("customMetadata", readCustomMetadata(meta.metadata)),
    };
  }
}

function selectVersion(adkVersion: number | undefined): number | "latest" {
  return adkVersion === undefined ? "latest" : fromAdkVersion(adkVersion);
}
