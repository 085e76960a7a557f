import {
  allScopes,
  compareUtf8,
  type ListScopesOptions,
  type PutOptions,
  type Scope,
  type ScopePage,
} from "@artifact-kit/core";
import {
  idAtLevel,
  pageLiveScopes,
  parseListScopes,
  scopePageOf,
} from "@artifact-kit/core/adapter";
import { ForwardingService } from "./forwarding.js";

// Adapters whose listScopes is broken in exactly one way; everything else is the memory
// adapter's own. Each validates its options through the adapter first (errors as it has them).

/** Lists every scope ever written, emptied ones too. */
export class ListsEmptiedScopes extends ForwardingService {
  readonly #written: Scope[] = [];
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await this.inner.put(scope, name, data, options);
    this.#written.push(meta.scope);
    return meta;
  }
  override async listScopes(options?: ListScopesOptions): Promise<ScopePage> {
    await this.inner.listScopes(options);
    const request = parseListScopes(options, this.capabilities().pagination.maxPageLimit);
    return pageLiveScopes(this.#written, request, () => true);
  }
}

/** A repaging of the adapter's own complete listing, broken in its order or its cursor. */
abstract class RepagedScopes extends ForwardingService {
  protected abstract order(ids: string[]): string[];
  protected abstract after(id: string, cursor: string): boolean;
  override async listScopes(options?: ListScopesOptions): Promise<ScopePage> {
    await this.inner.listScopes(options);
    const request = parseListScopes(options, this.capabilities().pagination.maxPageLimit);
    const { kind, app, user } = options ?? {};
    const whole = await allScopes(this.inner, {
      ...(kind === undefined ? {} : { kind }),
      ...(app === undefined ? {} : { app }),
      ...(user === undefined ? {} : { user }),
    });
    const ids = this.order(whole.map((scope) => idAtLevel(request.level, scope) ?? ""));
    const { cursor } = request;
    const rest = ids.filter((id) => cursor === undefined || this.after(id, cursor));
    return scopePageOf(request.level, rest.slice(0, request.limit + 1), request.limit);
  }
}

/** Pages include the cursor's own id again. */
export class InclusiveScopeCursor extends RepagedScopes {
  protected order(ids: string[]) {
    return ids;
  }
  protected after(id: string, cursor: string) {
    return compareUtf8(id, cursor) >= 0;
  }
}

/** Ids in UTF-16 code unit order, not UTF-8 byte order. */
export class ScopesInUtf16Order extends RepagedScopes {
  protected order(ids: string[]) {
    return [...ids].sort();
  }
  protected after(id: string, cursor: string) {
    return id > cursor;
  }
}

/** A user is listed only for its own user scope, not for a session under it. */
export class UsersOnlyByOwnScope extends ForwardingService {
  override async listScopes(options?: ListScopesOptions): Promise<ScopePage> {
    const page = await this.inner.listScopes(options);
    if (options?.kind !== "user") return page;
    const kept: Scope[] = [];
    for (const scope of page.items) {
      if ((await this.inner.listNames(scope, { limit: 1 })).items.length > 0) kept.push(scope);
    }
    return { ...page, items: kept };
  }
}
