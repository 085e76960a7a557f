import { S3ArtifactService } from "@artifact-kit/s3";
import { benchClient, emptyBucket } from "../s3/client.js";
import { growthSuite, latestAtScaleRows } from "./growth.js";

const FEW = 2;
/** Fewer than gcs-scale's 2,500: moto stores every object in one Python process. */
const MANY = 1_000;

/** Issue 17 for s3: get and head of latest with 2 and with 1,000 versions, on moto. */
export function s3ScaleSuite(endpoint: string) {
  const client = benchClient(endpoint);
  let buckets = 0;
  return growthSuite({
    title: "s3 at scale (moto)",
    sizes: { small: `${FEW} versions`, large: `${MANY} versions` },
    open: async () => {
      const bucket = `scale-${process.pid}-${buckets++}`;
      await emptyBucket(client, bucket);
      return new S3ArtifactService({ client, bucket });
    },
    rows: latestAtScaleRows(FEW, MANY),
  });
}
