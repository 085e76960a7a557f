import type { ArtifactService } from "@artifact-kit/core";

export type Rewrites = { [K in keyof ArtifactService]?: (reply: never) => unknown };

/** The real fs service, with some replies rewritten on the way back (an adapter that lies). */
export function lying(service: ArtifactService, rewrites: Rewrites): ArtifactService {
  return new Proxy(service, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const rewrite = rewrites[property as keyof ArtifactService];
      if (rewrite === undefined) return value.bind(target);
      return async (...args: unknown[]) => rewrite((await value.apply(target, args)) as never);
    },
  });
}
