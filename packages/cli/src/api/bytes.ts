import {
  type ArtifactMeta,
  asArtifactError,
  type ByteRange,
  invalidArgument,
  isArtifactError,
  type JsonObject,
  type Scope,
  validateMetadata,
  validateMimeType,
} from "@artifact-kit/core";
import { openDownload, openUpload } from "@artifact-kit/stream";
import { refuseDeclaredLength } from "./body.js";
import { authorize, type HandlerContext, publicVersion, type RequestBudget } from "./handlers.js";
import { parseRange } from "./range.js";
import type { Disposition, ScopeRoute } from "./route.js";

// Artifact bytes over HTTP, streamed both ways: a download is read a chunk at a time as the
// client takes it (byte ranges included), an upload is written a chunk at a time as it
// arrives, bounded by maxUploadBytes, and publishes nothing unless it ends whole. Both are
// opened within the request's deadline and then bounded by TRANSFER_TIMEOUT_MS in all.

export const TRANSFER_TIMEOUT_MS = 300_000;
export const METADATA_HEADER = "x-artifact-metadata";

type DownloadRoute = Extract<ScopeRoute, { operation: "download" }>;
type UploadRoute = Extract<ScopeRoute, { operation: "upload" }>;

/** Opens the version within the budget; the body then streams under TRANSFER_TIMEOUT_MS. */
export async function openDownloadResponse(
  context: HandlerContext,
  route: DownloadRoute,
  request: Request,
  budget: RequestBudget,
): Promise<Response> {
  await authorize(context, route, budget.signal);
  const { service } = context;
  for (;;) {
    const meta = await service.head(route.scope, route.name, {
      ...budget.deadline.toRequestOptions(),
      version: route.version,
    });
    const range = parseRange(request.headers.get("range") ?? undefined, meta.size);
    const stream = openDownload(service, route.scope, route.name, {
      version: meta.version,
      ...(range === undefined ? {} : { range }),
      buffering: { maxBytes: Math.max(meta.size, 1) },
      signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS),
    });
    try {
      await stream.meta;
    } catch (error) {
      // The latest found was deleted before it opened: "latest" now names an older version
      // (or none, which the next head says); a 404 would be false while the name has versions.
      if (route.version !== "latest" || !isArtifactError(error, "not_found")) throw error;
      budget.deadline.check();
      continue;
    }
    if (meta.size === 0) await stream.cancel();
    const body = meta.size === 0 ? null : reportingFailures(stream, context.onServerError);
    return new Response(body, {
      status: range === undefined ? 200 : 206,
      headers: contentHeaders(meta, range, route.disposition),
    });
  }
}

/**
 * Once the answer has begun, a failure (a corrupt block, a store gone) can only cut the body
 * short, which the client sees as a broken transfer; the operator is told the cause.
 */
function reportingFailures(
  stream: ReadableStream<Uint8Array>,
  onServerError: ((error: Error) => void) | undefined,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          onServerError?.(asArtifactError(error, "download"));
          // The HTTP layer logs what ends a body; the cause has been told just above.
          controller.error(new Error("the download was cut short by a failure of the store"));
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** Bytes served from the store carry its type, never run as the console's own page. */
export function contentHeaders(
  meta: ArtifactMeta,
  range: ByteRange | undefined,
  disposition: Disposition,
): Record<string, string> {
  const type = /^[\x20-\x7e]+$/.test(meta.mimeType) ? meta.mimeType : "application/octet-stream";
  const pdf = /^application\/pdf\s*(;|$)/i.test(type);
  return {
    "content-type": type,
    "content-length": String(range?.length ?? meta.size),
    "content-disposition": contentDisposition(disposition, meta.name),
    "accept-ranges": "bytes",
    etag: `"${meta.sha256}"`,
    "cache-control": "private, no-cache",
    // HTML, SVG or anything else opened from here is a sandbox without script and without
    // this origin. A PDF is the one exception: the browser's viewer does not run sandboxed.
    "content-security-policy": pdf
      ? "default-src 'none'; object-src 'self'; frame-ancestors 'self'"
      : "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'",
    ...(range === undefined
      ? {}
      : {
          "content-range": `bytes ${range.offset}-${range.offset + range.length - 1}/${meta.size}`,
        }),
  };
}

/** RFC 6266: an ASCII fallback, then the exact last segment of the name in UTF-8. */
function contentDisposition(disposition: Disposition, name: string): string {
  const file = name.slice(name.lastIndexOf("/") + 1);
  const fallback = file.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(file).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${disposition}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Checks the request within the budget; returns the upload to run after it. */
export async function prepareUpload(
  context: HandlerContext,
  route: UploadRoute,
  request: Request,
  budget: RequestBudget,
): Promise<() => Promise<unknown>> {
  refuseDeclaredLength(request, context.maxUploadBytes);
  const mimeType = validateMimeType(
    request.headers.get("content-type") ?? "application/octet-stream",
    "content-type",
  );
  const metadata = parseMetadataHeader(request.headers.get(METADATA_HEADER) ?? undefined);
  await authorize(context, route, budget.signal);
  return () => runUpload(context, route.scope, route.name, request, { mimeType, metadata });
}

async function runUpload(
  context: HandlerContext,
  scope: Scope,
  name: string,
  request: Request,
  options: { mimeType: string; metadata: JsonObject | undefined },
): Promise<unknown> {
  const { maxUploadBytes } = context;
  const upload = openUpload(context.service, scope, name, {
    mimeType: options.mimeType,
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    maxBytes: maxUploadBytes,
    buffering: { maxBytes: maxUploadBytes },
    timeoutMs: TRANSFER_TIMEOUT_MS,
  });
  if (request.body === null) {
    await upload.close();
  } else {
    // An aborted request errors the body, which aborts the upload: nothing is published.
    await request.body.pipeTo(upload).catch(() => undefined);
  }
  return { scope, name, ...publicVersion(await upload.meta) };
}

/** `x-artifact-metadata`: percent-encoded JSON of an object (headers carry Latin-1 only). */
function parseMetadataHeader(header: string | undefined): JsonObject | undefined {
  if (header === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(decodeURIComponent(header));
  } catch {
    throw invalidArgument("metadata", `the ${METADATA_HEADER} header is not percent-encoded JSON`);
  }
  return validateMetadata(value);
}
