import { type Capabilities, closedError } from "@artifact-kit/core";
import { AdapterService } from "@artifact-kit/core/adapter";
import type { RepairOptions, RepairReport } from "./repair.js";
import type { ObjectStoreBackend } from "./store.js";

/**
 * What every object-store adapter's service is: core's adapter template over the protocol's
 * backend, plus `repair()`. A backend's service only builds its bucket client and dialect.
 */
export class ObjectStoreService extends AdapterService {
  readonly #backend: ObjectStoreBackend;

  constructor(backend: ObjectStoreBackend, capabilities: Capabilities) {
    super(backend, capabilities);
    this.#backend = backend;
  }

  /**
   * Removes what uploads whose owner died leave behind: incomplete multipart uploads where the
   * backend can list them, and staging objects, older than `olderThanMs` (default 24 h).
   * Published versions, allocations, markers and bindings are never touched.
   */
  async repair(options?: RepairOptions): Promise<RepairReport> {
    if (this.closed) throw closedError();
    return this.#backend.repair(options);
  }
}
