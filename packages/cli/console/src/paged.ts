import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { Page } from "./api.js";

// A listing read a page at a time, on demand. A change of `key` (another scope, another
// prefix) starts over at once, in the same render, and loads the first page; a page that
// arrives for an earlier key is dropped.

export interface Paged<T> {
  items: T[];
  hasMore: boolean;
  loading: boolean;
  error: string | undefined;
  loadMore: () => void;
  reload: () => void;
}

interface State<T, C> {
  key: string;
  items: T[];
  cursor: C | undefined;
  hasMore: boolean;
  loading: boolean;
  error: string | undefined;
}

function fresh<T, C>(key: string): State<T, C> {
  return { key, items: [], cursor: undefined, hasMore: true, loading: false, error: undefined };
}

export function usePaged<T, C>(
  key: string,
  fetchPage: (cursor: C | undefined) => Promise<Page<T, C>>,
): Paged<T> {
  const [generation, setGeneration] = useState(0);
  const [, rerender] = useState(0);
  const token = `${key}#${generation}`;
  const state = useRef<State<T, C>>(fresh(token));
  if (state.current.key !== token) state.current = fresh(token);
  const fetcher = useRef(fetchPage);
  fetcher.current = fetchPage;

  const update = useCallback((asked: string, patch: Partial<State<T, C>>) => {
    if (state.current.key !== asked) return;
    state.current = { ...state.current, ...patch };
    rerender((n) => n + 1);
  }, []);

  const loadMore = useCallback(() => {
    const { key: asked, loading, hasMore, cursor, items } = state.current;
    if (loading || !hasMore) return;
    update(asked, { loading: true });
    fetcher.current(cursor).then(
      (page) =>
        update(asked, {
          items: [...items, ...page.items],
          cursor: page.nextCursor,
          hasMore: page.nextCursor !== undefined,
          loading: false,
        }),
      (failure: Error) => update(asked, { error: failure.message, hasMore: false, loading: false }),
    );
  }, [update]);

  useEffect(() => loadMore(), [token, loadMore]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  const { items, hasMore, loading, error } = state.current;
  return { items, hasMore, loading, error, loadMore, reload };
}
