import type { ArtifactService, Deadline, RequestOptions } from "@artifact-kit/core";
import { contentOptions, type ServicePort, servicePort } from "@artifact-kit/core/adapter";
import { workerTransfer } from "./transfer.js";

/**
 * How the router calls a worker with the requests it has parsed: straight through the
 * worker's own parsed-request entry points when it is built on core's adapter template,
 * else through its public methods.
 */
export function workerPort(service: ArtifactService): ServicePort {
  return servicePort(service) ?? publicMethodsPort(service);
}

/**
 * A port over a worker's public methods, for workers not built on core's template
 * (third-party adapters): each request goes back into options that the worker parses again.
 */
function publicMethodsPort(service: ArtifactService): ServicePort {
  return Object.freeze({
    put: (r) =>
      service.put(r.scope, r.name, r.data, { ...contentOptions(r), ...remaining(r.deadline) }),
    get: (r) => service.get(r.scope, r.name, { version: r.version, ...remaining(r.deadline) }),
    head: (r) => service.head(r.scope, r.name, { version: r.version, ...remaining(r.deadline) }),
    delete: (r) => service.delete(r.scope, r.name, r.selector, remaining(r.deadline)),
    listNames: (r) =>
      service.listNames(r.scope, {
        limit: r.limit,
        ...(r.cursor === undefined ? {} : { cursor: r.cursor }),
        ...(r.prefix === undefined ? {} : { prefix: r.prefix }),
        ...remaining(r.deadline),
      }),
    listVersions: (r) =>
      service.listVersions(r.scope, r.name, {
        limit: r.limit,
        ...(r.cursor === undefined ? {} : { cursor: r.cursor }),
        ...remaining(r.deadline),
      }),
    list: (r) => service.list(r.scope, remaining(r.deadline)),
    listScopes: (r) =>
      service.listScopes({
        ...r.level,
        limit: r.limit,
        ...(r.cursor === undefined ? {} : { cursor: r.cursor }),
        ...remaining(r.deadline),
      }),
    openUpload: (r) =>
      workerTransfer(service, "streamingUpload").openUpload(r.scope, r.name, {
        ...contentOptions(r),
        // Only a bound of the caller's own: the worker applies its maxArtifactBytes anyway.
        ...(r.maxBytesBound === "maxBytes" ? { maxBytes: r.maxBytes } : {}),
        ...remaining(r.deadline),
      }),
    openDownload: (r) =>
      workerTransfer(
        service,
        r.range === undefined ? "streamingDownload" : "byteRanges",
      ).openDownload(r.scope, r.name, {
        version: r.version,
        ...(r.range === undefined ? {} : { range: r.range }),
        ...remaining(r.deadline),
      }),
  } satisfies ServicePort);
}

/** The request's one absolute deadline, as options for the worker: what is left of it. */
function remaining(deadline: Deadline): RequestOptions {
  // A request that went stale while it waited for a cold route goes no further.
  deadline.check();
  return deadline.toRequestOptions();
}
