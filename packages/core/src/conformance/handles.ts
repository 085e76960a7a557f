import type { ArtifactService } from "../types.js";
import type { Command } from "./commands.js";
import type { ReferenceModel } from "./model.js";
import type { ServiceHolder } from "./subject.js";

// Several live instances on one backend: the subject's service and others from its
// `openAnother`, which the kit closes itself. The model-based commands run through any of
// them by a wrapper that points the holder at one handle for the length of one command.

/**
 * Opens `others` more instances over the holder's storage (`openAnother`), runs `body` with
 * the holder's service first and the others after it, and always closes the others.
 */
export async function withHandles<T>(
  holder: ServiceHolder,
  others: number,
  body: (handles: readonly ArtifactService[]) => Promise<T>,
): Promise<T> {
  const { openAnother } = holder.subject;
  if (!openAnother) throw new TypeError("the subject has no openAnother");
  const opened: ArtifactService[] = [];
  try {
    for (let i = 0; i < others; i++) opened.push(await openAnother());
    return await body([holder.service, ...opened]);
  } finally {
    await Promise.all(opened.map((service) => service.close().catch(() => undefined)));
  }
}

/** The holder the model-based commands see when they run through several handles. */
export interface HandlesHolder extends ServiceHolder {
  readonly handles: readonly ArtifactService[];
}

/** Runs one model command through handle `index` (modulo the handles there are). */
export class ThroughHandleCommand implements Command {
  constructor(
    readonly inner: Command,
    readonly index: number,
  ) {}
  check(model: Readonly<ReferenceModel>): boolean {
    return this.inner.check(model);
  }
  async run(model: ReferenceModel, real: HandlesHolder): Promise<void> {
    const handle = real.handles[this.index % real.handles.length] as ArtifactService;
    // A holder of its own: the command reads `service` from it, and nothing is replaced.
    await this.inner.run(model, { service: handle, subject: real.subject });
  }
  toString(): string {
    return `handle ${this.index}: ${this.inner}`;
  }
}
