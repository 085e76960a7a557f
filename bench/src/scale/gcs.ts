import { gcsBucket, refuseEmulatorHostVariable } from "../gcs/bucket.js";
import { objectStoreScaleSuite } from "./object-store.js";

/** Issue 17: gcs get and head of latest with 2 and with 2,500 versions, on fake-gcs-server. */
export function gcsScaleSuite(endpoint: string) {
  refuseEmulatorHostVariable();
  return objectStoreScaleSuite({
    title: "gcs at scale (fake-gcs-server)",
    endpoint,
    few: 2,
    many: 2_500,
    bucket: gcsBucket,
  });
}
