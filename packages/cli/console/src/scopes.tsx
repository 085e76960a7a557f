import { call, type Page, query, type Scope } from "./api.js";
import { scopeLabel, visible } from "./display.js";
import { usePaged } from "./paged.js";
import { VirtualList } from "./virtual-list.js";

// Apps, then an app's users, then a user's sessions: each level a paged listing of the
// scopes that hold artifacts. Choosing a scope opens its artifacts and its children.

const PAGE = 100;

function childKind(scope: Scope | undefined): Scope["kind"] | undefined {
  if (scope === undefined) return "app";
  if (scope.kind === "app") return "user";
  if (scope.kind === "user") return "session";
  return undefined;
}

function lastId(scope: Scope): string {
  return scope.kind === "app" ? scope.app : scope.kind === "user" ? scope.user : scope.session;
}

export function ScopeBrowser(props: {
  parent: Scope | undefined;
  chosen: Scope | undefined;
  onChoose: (scope: Scope) => void;
}) {
  const kind = childKind(props.parent);
  const parent = props.parent;
  const key = `${kind}:${parent === undefined ? "" : scopeLabel(parent)}`;
  const paged = usePaged<Scope, string>(key, (cursor) => {
    const app = parent?.app;
    const user = parent !== undefined && parent.kind !== "app" ? parent.user : undefined;
    return call<Page<Scope, string>>(
      "GET",
      `/v1/scopes${query({ kind, app, user, cursor, limit: PAGE })}`,
    );
  });
  if (kind === undefined) return null;
  const label = `${kind}s`;
  return (
    <section class="scopes" aria-label={`${kind}s`}>
      <h2>{kind === "app" ? "Apps" : kind === "user" ? "Users" : "Sessions"}</h2>
      {paged.error === undefined ? null : (
        <p role="alert" class="error">
          {paged.error}
        </p>
      )}
      <VirtualList
        label={label}
        items={paged.items}
        keyOf={scopeLabel}
        render={(scope) => <span class="id">{visible(lastId(scope))}</span>}
        onChoose={props.onChoose}
        hasMore={paged.hasMore}
        loading={paged.loading}
        onLoadMore={paged.loadMore}
        chosen={props.chosen === undefined ? undefined : scopeLabel(props.chosen)}
        height={300}
      />
    </section>
  );
}
