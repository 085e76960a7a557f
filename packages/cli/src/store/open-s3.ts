import type * as S3Package from "@artifact-kit/s3";
import type * as ClientPackage from "@aws-sdk/client-s3";
import type { Opener } from "./backends.js";

/**
 * The client takes region, credentials and endpoint from the SDK's usual environment
 * (AWS_REGION, AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL_S3, ...). A custom endpoint (MinIO, moto,
 * a local R2 proxy) is addressed by path: such servers rarely resolve bucket subdomains.
 *
 * A command that writes opens with `open`, whose probe writes and deletes an object to check
 * that the bucket refuses a second create-only write; one that only reads constructs the
 * service without it, so a read-only key or bucket policy can list and get.
 */
export const open: Opener<"s3"> = async (location, [s3, clientPackage], { readOnly }) => {
  const { S3ArtifactService } = s3 as typeof S3Package;
  const { S3Client } = clientPackage as typeof ClientPackage;
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  const client = new S3Client(endpoint === undefined ? {} : { forcePathStyle: true });
  const options = { client, bucket: location.bucket, prefix: location.prefix, ...location.bounds };
  return readOnly ? new S3ArtifactService(options) : S3ArtifactService.open(options);
};
