import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { Page } from "./api.js";

// A listing read a page at a time, on demand. A change of `key` (another scope, another
// prefix) starts over; a page that arrives for an earlier key is dropped.

export interface Paged<T> {
  items: T[];
  hasMore: boolean;
  loading: boolean;
  error: string | undefined;
  loadMore: () => void;
  reload: () => void;
}

export function usePaged<T, C>(
  key: string,
  fetchPage: (cursor: C | undefined) => Promise<Page<T, C>>,
): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<C | undefined>(undefined);
  const [hasMore, setHasMore] = useState(true);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [generation, setGeneration] = useState(0);
  const current = useRef("");
  const fetcher = useRef(fetchPage);
  fetcher.current = fetchPage;

  const token = `${key}#${generation}`;
  useEffect(() => {
    current.current = token;
    setItems([]);
    setCursor(undefined);
    setHasMore(true);
    setLoading(false);
    setError(undefined);
  }, [token]);

  const loadMore = useCallback(() => {
    if (loading || !hasMore) return;
    const asked = current.current;
    setLoading(true);
    fetcher.current(cursor).then(
      (page) => {
        if (current.current !== asked) return;
        setItems((before) => [...before, ...page.items]);
        setCursor(page.nextCursor);
        setHasMore(page.nextCursor !== undefined);
        setLoading(false);
      },
      (failure: Error) => {
        if (current.current !== asked) return;
        setError(failure.message);
        setHasMore(false);
        setLoading(false);
      },
    );
  }, [loading, hasMore, cursor]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { items, hasMore, loading, error, loadMore, reload };
}
