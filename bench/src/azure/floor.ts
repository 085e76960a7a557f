import type { ContainerClient } from "@azure/storage-blob";
import type { StoreUnderTest } from "../store.js";
import { emptyContainer } from "./client.js";

/**
 * The least a store on Azure Blob Storage can do: one raw Put Blob per put, one Get Blob of a
 * version it already knows per get, one List Blobs per list. Driven one call at a time, so
 * versions need no allocation and nothing is checked.
 */
export class RawAzureFloor implements StoreUnderTest {
  readonly #container: ContainerClient;
  #latest = new Map<string, number>();

  constructor(container: ContainerClient) {
    this.#container = container;
  }

  async put(name: string, bytes: Uint8Array) {
    const version = (this.#latest.get(name) ?? 0) + 1;
    await this.#container.getBlockBlobClient(`${name}/${version}`).upload(bytes, bytes.byteLength);
    this.#latest.set(name, version);
    return version;
  }

  async getLatest(name: string) {
    const latest = this.#latest.get(name);
    if (latest === undefined) throw new Error(`floor lost artifact "${name}"`);
    // One Get Blob (downloadToBuffer would read the properties first).
    const response = await this.#container.getBlockBlobClient(`${name}/${latest}`).download();
    const chunks: Uint8Array[] = [];
    for await (const chunk of response.readableStreamBody as AsyncIterable<Uint8Array>) {
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  async listVersions(name: string) {
    const pages = this.#container
      .listBlobsFlat({ prefix: `${name}/` })
      .byPage({ maxPageSize: 5000 });
    return (await pages.next()).value;
  }

  async reset() {
    await emptyContainer(this.#container);
    this.#latest = new Map();
  }

  async close() {}
}
