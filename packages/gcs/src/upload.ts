import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { finished } from "node:stream/promises";
import { asArtifactError } from "@artifact-kit/core";
import type { ParsedUpload, UploadTarget } from "@artifact-kit/core/adapter";
import type { BucketClient } from "./bucket-client.js";
import { raceDeadline } from "./deadline-race.js";
import type { ObjectLayout } from "./layout.js";
import { encodeHeader, manifestJson } from "./manifest.js";
import { publishedMetadata } from "./published.js";
import type { VersionPublisher } from "./publisher.js";

/**
 * A resumable upload to a staging object, create-only; at finish, the manifest header is
 * written beside it, the two are composed server-side, and the result is copied create-only
 * to the version's name: the publication point. No byte is buffered beyond one chunk.
 */
export function stagedUpload(
  client: BucketClient,
  layout: ObjectLayout,
  publisher: VersionPublisher,
  request: ParsedUpload,
): UploadTarget {
  const uploadId = randomUUID();
  const parts = {
    data: layout.uploadObject(uploadId, "data"),
    header: layout.uploadObject(uploadId, "header"),
    composed: layout.uploadObject(uploadId, "composed"),
  };
  const stream = client.openUpload(parts.data);
  let streamFailure: unknown;
  stream.on("error", (error) => {
    streamFailure ??= error;
  });
  const failed = () =>
    streamFailure === undefined ? undefined : asArtifactError(streamFailure, "GCS upload");
  const cleanup = () => Promise.all(Object.values(parts).map((part) => client.removeQuietly(part)));
  return {
    write: async (chunk) => {
      const failure = failed();
      if (failure) throw failure;
      // The chunk is only lent, and the client's stream keeps what it has not sent yet.
      if (!stream.write(new Uint8Array(chunk))) await once(stream, "drain");
    },
    publish: async (digest, deadline) => {
      stream.end();
      await raceDeadline(finished(stream), deadline).catch((error: unknown) => {
        throw deadline.failure() ?? failed() ?? asArtifactError(error, "GCS upload");
      });
      try {
        return await publisher.commit(request, digest, deadline, async (manifest, name) => {
          const header = encodeHeader(manifestJson(manifest));
          await client.createOnly(
            deadline,
            { name: parts.header, body: header, customMetadata: {} },
            false,
          );
          await client.compose(deadline, [parts.header, parts.data], parts.composed);
          deadline.check();
          return client.copyCreateOnly(deadline, parts.composed, {
            name,
            customMetadata: publishedMetadata(manifest, header.byteLength),
          });
        });
      } finally {
        await cleanup();
      }
    },
    discard: async () => {
      stream.destroy();
      await cleanup();
    },
  };
}
