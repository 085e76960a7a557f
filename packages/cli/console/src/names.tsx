import { useState } from "preact/hooks";
import { call, type Page, query, type Scope, scopePath } from "./api.js";
import { visible } from "./display.js";
import { usePaged } from "./paged.js";
import { VirtualList } from "./virtual-list.js";

const PAGE = 500;

/** A scope's names, filtered by prefix, read a page at a time as the list scrolls. */
export function NameList(props: {
  scope: Scope;
  chosen: string | undefined;
  onChoose: (name: string) => void;
  generation: number;
}) {
  const [prefix, setPrefix] = useState("");
  const key = `${scopePath(props.scope)}|${prefix}|${props.generation}`;
  const paged = usePaged<string, string>(key, (cursor) =>
    call<Page<string, string>>(
      "GET",
      `${scopePath(props.scope)}/names${query({ prefix: prefix === "" ? undefined : prefix, cursor, limit: PAGE })}`,
    ),
  );
  return (
    <section class="names" aria-label="names">
      <h2>Names</h2>
      <label for="prefix">Prefix</label>
      <input
        id="prefix"
        type="search"
        value={prefix}
        placeholder="reports/"
        onInput={(event) => setPrefix((event.currentTarget as HTMLInputElement).value)}
      />
      {paged.error === undefined ? null : (
        <p role="alert" class="error">
          {paged.error}
        </p>
      )}
      <VirtualList
        label="names"
        items={paged.items}
        keyOf={(name) => name}
        render={(name) => (
          <span class="id" title={visible(name)}>
            {visible(name)}
          </span>
        )}
        onChoose={props.onChoose}
        hasMore={paged.hasMore}
        loading={paged.loading}
        onLoadMore={paged.loadMore}
        chosen={props.chosen}
      />
    </section>
  );
}
