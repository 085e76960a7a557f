import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { StoreUnderTest } from "../store.js";
import { emptyBucket } from "./client.js";

/**
 * The least a store on S3 can do: one raw PutObject per put, one GetObject of a version it
 * already knows per get, one ListObjectsV2 per list. Driven one call at a time, so versions
 * need no allocation and nothing is checked.
 */
export class RawS3Floor implements StoreUnderTest {
  readonly #client: S3Client;
  readonly #bucket: string;
  #latest = new Map<string, number>();

  constructor(client: S3Client, bucket: string) {
    this.#client = client;
    this.#bucket = bucket;
  }

  async put(name: string, bytes: Uint8Array) {
    const version = (this.#latest.get(name) ?? 0) + 1;
    await this.#client.send(
      new PutObjectCommand({ Bucket: this.#bucket, Key: `${name}/${version}`, Body: bytes }),
    );
    this.#latest.set(name, version);
    return version;
  }

  async getLatest(name: string) {
    const latest = this.#latest.get(name);
    if (latest === undefined) throw new Error(`floor lost artifact "${name}"`);
    const object = await this.#client.send(
      new GetObjectCommand({ Bucket: this.#bucket, Key: `${name}/${latest}` }),
    );
    return object.Body?.transformToByteArray();
  }

  async listVersions(name: string) {
    return this.#client.send(
      new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: `${name}/` }),
    );
  }

  async reset() {
    await emptyBucket(this.#client, this.#bucket);
    this.#latest = new Map();
  }

  async close() {}
}
