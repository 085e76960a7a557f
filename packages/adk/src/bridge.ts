import {
  type ArtifactMeta,
  type ArtifactService,
  allNames,
  allVersions,
  compareUtf8,
  isArtifactError,
} from "@artifact-kit/core";
import type {
  BaseArtifactService,
  DeleteArtifactRequest,
  ListArtifactKeysRequest,
  ListVersionsRequest,
  LoadArtifactRequest,
  SaveArtifactRequest,
} from "@google/adk";
import { locate, sessionScope, USER_NAMESPACE_PREFIX, userScope } from "./location.js";
import { readCustomMetadata, readPartRecord, storedMetadata } from "./metadata.js";
import { optional } from "./optional.js";
import { decodePart, encodePart, type Part } from "./part.js";
import { fromAdkVersion, toAdkVersion } from "./version.js";

/** ADK's description of one version (its `ArtifactVersion`, named through its own method). */
type AdkArtifactVersion = NonNullable<
  Awaited<ReturnType<BaseArtifactService["getArtifactVersion"]>>
>;

/**
 * Presents any artifact-kit `ArtifactService` as `@google/adk`'s `BaseArtifactService`.
 * The bridge holds no state of its own; the service stays the caller's to close.
 */
export function toAdkArtifactService(service: ArtifactService): BaseArtifactService {
  return new AdkArtifactBridge(service);
}

class AdkArtifactBridge implements BaseArtifactService {
  readonly #service: ArtifactService;

  constructor(service: ArtifactService) {
    this.#service = service;
  }

  async saveArtifact(request: SaveArtifactRequest): Promise<number> {
    const { scope, name } = locate(request, request.filename);
    const { data, mimeType, record } = encodePart(request.artifact);
    const meta = await this.#service.put(scope, name, data, {
      ...optional("mimeType", mimeType),
      metadata: storedMetadata(record, request.customMetadata),
    });
    return toAdkVersion(meta.version);
  }

  async loadArtifact(request: LoadArtifactRequest): Promise<Part | undefined> {
    const { scope, name } = locate(request, request.filename);
    const artifact = await undefinedIfNotFound(
      this.#service.get(scope, name, { version: selectVersion(request.version) }),
    );
    return artifact && decodePart(artifact, readPartRecord(artifact.metadata));
  }

  async listArtifactKeys(request: ListArtifactKeysRequest): Promise<string[]> {
    const [sessionNames, userNames] = await Promise.all([
      allNames(this.#service, sessionScope(request)),
      allNames(this.#service, userScope(request)),
    ]);
    const userKeys = userNames.map((name) => `${USER_NAMESPACE_PREFIX}${name}`);
    return [...sessionNames, ...userKeys].sort(compareUtf8);
  }

  async deleteArtifact(request: DeleteArtifactRequest): Promise<void> {
    const { scope, name } = locate(request, request.filename);
    // ADK's services treat deleting a missing artifact as done.
    await undefinedIfNotFound(this.#service.delete(scope, name, "all"));
  }

  async listVersions(request: ListVersionsRequest): Promise<number[]> {
    const { scope, name } = locate(request, request.filename);
    const versions = await allVersions(this.#service, scope, name);
    return versions.map((meta) => toAdkVersion(meta.version));
  }

  async listArtifactVersions(request: ListVersionsRequest): Promise<AdkArtifactVersion[]> {
    const { scope, name } = locate(request, request.filename);
    const versions = await allVersions(this.#service, scope, name);
    return versions.map(describeVersion);
  }

  async getArtifactVersion(request: LoadArtifactRequest): Promise<AdkArtifactVersion | undefined> {
    const { scope, name } = locate(request, request.filename);
    const meta = await undefinedIfNotFound(
      this.#service.head(scope, name, { version: selectVersion(request.version) }),
    );
    return meta && describeVersion(meta);
  }
}

function selectVersion(adkVersion: number | undefined): number | "latest" {
  return adkVersion === undefined ? "latest" : fromAdkVersion(adkVersion);
}

function describeVersion(meta: ArtifactMeta): AdkArtifactVersion {
  return {
    version: toAdkVersion(meta.version),
    mimeType: meta.mimeType,
    ...optional("customMetadata", readCustomMetadata(meta.metadata)),
  };
}

/** ADK's contract answers a missing artifact with `undefined`; every other failure stays an ArtifactError. */
async function undefinedIfNotFound<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (error) {
    if (isArtifactError(error, "not_found")) return undefined;
    throw error;
  }
}
