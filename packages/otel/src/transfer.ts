import type { ArtifactMeta, DownloadSource, UploadSink } from "@artifact-kit/core";
import { ATTR_TRANSFERRED } from "./attributes.js";
import { metaAttributes, sizeOf } from "./request-attributes.js";
import type { Operation, Telemetry } from "./telemetry.js";

// A transfer's span covers the whole transfer, not one call: it ends at the upload's finish,
// the download's last piece, the first failure, or the caller's abort / cancel ("cancelled").
// A transfer the caller abandons without any of these leaves its span open, as it leaves the
// adapter's resources held.

/** An upload sink that passes every call through and ends the `upload` span when it settles. */
export class TracedUpload implements UploadSink {
  readonly #sink: UploadSink;
  readonly #op: Operation;
  readonly #telemetry: Telemetry;
  #bytes = 0;

  constructor(sink: UploadSink, op: Operation, telemetry: Telemetry) {
    this.#sink = sink;
    this.#op = op;
    this.#telemetry = telemetry;
  }

  async write(chunk: Uint8Array): Promise<void> {
    try {
      await this.#op.within(() => this.#sink.write(chunk));
    } catch (error) {
      this.#fail(error);
      throw error;
    }
    this.#bytes += sizeOf(chunk) ?? 0;
  }

  async finish(): Promise<ArtifactMeta> {
    let meta: ArtifactMeta;
    try {
      meta = await this.#op.within(() => this.#sink.finish());
    } catch (error) {
      this.#fail(error);
      throw error;
    }
    this.#op.set({ ...metaAttributes(meta), [ATTR_TRANSFERRED]: this.#bytes });
    this.#telemetry.countWritten("upload", meta.size);
    this.#op.end("ok");
    return meta;
  }

  async abort(reason?: unknown): Promise<void> {
    try {
      await this.#op.within(() => this.#sink.abort(reason));
    } finally {
      this.#op.set({ [ATTR_TRANSFERRED]: this.#bytes });
      this.#op.end("cancelled");
    }
  }

  #fail(error: unknown): void {
    this.#op.set({ [ATTR_TRANSFERRED]: this.#bytes });
    this.#op.fail(error);
  }
}

/** A download source that passes every call through and ends the `download` span when it settles. */
export class TracedDownload implements DownloadSource {
  readonly #source: DownloadSource;
  readonly #op: Operation;
  readonly #telemetry: Telemetry;
  #bytes = 0;

  constructor(source: DownloadSource, op: Operation, telemetry: Telemetry) {
    this.#source = source;
    this.#op = op;
    this.#telemetry = telemetry;
  }

  get meta(): ArtifactMeta {
    return this.#source.meta;
  }

  get offset(): number {
    return this.#source.offset;
  }

  get length(): number {
    return this.#source.length;
  }

  async read(): Promise<Uint8Array | undefined> {
    let piece: Uint8Array | undefined;
    try {
      piece = await this.#op.within(() => this.#source.read());
    } catch (error) {
      this.#settle();
      this.#op.fail(error);
      throw error;
    }
    if (piece === undefined) {
      this.#settle();
      this.#op.end("ok");
    } else {
      this.#bytes += piece.byteLength;
      this.#telemetry.countRead("download", piece.byteLength);
    }
    return piece;
  }

  async cancel(): Promise<void> {
    try {
      await this.#op.within(() => this.#source.cancel());
    } finally {
      this.#settle();
      this.#op.end("cancelled");
    }
  }

  #settle(): void {
    this.#op.set({ [ATTR_TRANSFERRED]: this.#bytes });
  }
}
