import { randomUUID } from "node:crypto";
import { s3Subjects } from "@artifact-kit/s3/testing";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    s3Endpoint: string;
  }
}

const client = () =>
  new S3Client({
    endpoint: inject("s3Endpoint"),
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "matrix", secretAccessKey: "matrix" },
  });

/** A new bucket on moto's S3 server, and the s3 subjects in it. */
export async function s3MatrixBucket(): Promise<string> {
  const bucket = `matrix-${randomUUID()}`;
  await client().send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}

export const s3MatrixSubjects = (bucket: () => string) => s3Subjects(client, bucket);
