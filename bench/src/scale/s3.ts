import { s3Bucket } from "../s3/client.js";
import { objectStoreScaleSuite } from "./object-store.js";

/** Issue 17 for s3: get and head of latest with 2 and with 1,000 versions, on moto. */
export function s3ScaleSuite(endpoint: string) {
  return objectStoreScaleSuite({
    title: "s3 at scale (moto)",
    endpoint,
    few: 2,
    // Fewer than gcs-scale's 2,500: moto stores every object in one Python process.
    many: 1_000,
    bucket: s3Bucket,
  });
}
