import { S3ArtifactService } from "@artifact-kit/s3";
import { BENCH_SCOPE } from "../kit-store.js";
import { benchClient, emptyBucket } from "../s3/client.js";
import { fillVersions, growthSuite } from "./growth.js";

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
    rows: [
      {
        label: "get latest",
        small: (service) => fillVersions(service, "doc", FEW, 16),
        large: (service) => fillVersions(service, "doc", MANY, 16),
        probe: (service) => service.get(BENCH_SCOPE, "doc"),
        bound: 1.5,
      },
      {
        label: "head latest",
        small: (service) => fillVersions(service, "doc", FEW, 16),
        large: (service) => fillVersions(service, "doc", MANY, 16),
        probe: (service) => service.head(BENCH_SCOPE, "doc"),
        bound: 1.5,
      },
    ],
  });
}
