import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

// A list of any length that renders only the rows in view (fixed row height), asks for the
// next page when the view nears the end, and works from the keyboard as a listbox: arrows,
// Home/End, PageUp/PageDown move, Enter chooses.

const ROW_HEIGHT = 30;
const OVERSCAN = 8;

interface VirtualListProps<T> {
  label: string;
  items: readonly T[];
  keyOf: (item: T) => string;
  render: (item: T) => ComponentChildren;
  onChoose: (item: T) => void;
  hasMore: boolean;
  loading: boolean;
  onLoadMore: () => void;
  chosen?: string | undefined;
  height?: number;
}

export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, hasMore, loading, onLoadMore } = props;
  const height = props.height ?? 420;
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [active, setActive] = useState(0);

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  const nearEnd = last >= items.length - OVERSCAN || active >= items.length - OVERSCAN;

  useEffect(() => {
    if (nearEnd && hasMore && !loading) onLoadMore();
  }, [nearEnd, hasMore, loading, onLoadMore]);

  useEffect(() => {
    if (active >= items.length && items.length > 0) setActive(items.length - 1);
  }, [items.length, active]);

  const moveTo = (index: number) => {
    const next = Math.max(0, Math.min(items.length - 1, index));
    setActive(next);
    const element = box.current;
    if (element === null) return;
    const top = next * ROW_HEIGHT;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + ROW_HEIGHT > element.scrollTop + height) {
      element.scrollTop = top + ROW_HEIGHT - height;
    }
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const page = Math.floor(height / ROW_HEIGHT);
    const moves: Record<string, number> = {
      ArrowDown: active + 1,
      ArrowUp: active - 1,
      PageDown: active + page,
      PageUp: active - page,
      Home: 0,
      End: items.length - 1,
    };
    const target = moves[event.key];
    if (target !== undefined) {
      event.preventDefault();
      moveTo(target);
    } else if (event.key === "Enter" && items[active] !== undefined) {
      event.preventDefault();
      props.onChoose(items[active] as T);
    }
  };

  const activeId = items[active] === undefined ? undefined : `${props.label}-row-${active}`;
  return (
    <div class="virtual">
      <div
        ref={box}
        class="virtual-box"
        role="listbox"
        aria-label={props.label}
        tabIndex={0}
        aria-activedescendant={activeId}
        style={{ height: `${height}px` }}
        onScroll={(event) => setScrollTop((event.currentTarget as HTMLDivElement).scrollTop)}
        onKeyDown={onKeyDown}
      >
        <div style={{ height: `${items.length * ROW_HEIGHT}px`, position: "relative" }}>
          {items.slice(first, last).map((item, offset) => {
            const index = first + offset;
            const key = props.keyOf(item);
            return (
              // The listbox takes the keys and the focus (aria-activedescendant); a row is
              // only clicked.
              // biome-ignore lint/a11y/useKeyWithClickEvents: see above
              // biome-ignore lint/a11y/useFocusableInteractive: see above
              <div
                key={key}
                id={`${props.label}-row-${index}`}
                role="option"
                aria-selected={props.chosen === key}
                class={`row${index === active ? " active" : ""}`}
                style={{ top: `${index * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` }}
                onClick={() => {
                  setActive(index);
                  props.onChoose(item);
                }}
              >
                {props.render(item)}
              </div>
            );
          })}
        </div>
      </div>
      <p class="list-status" aria-live="polite">
        {items.length} shown{hasMore ? (loading ? ", loading more…" : ", more to load") : ""}
      </p>
    </div>
  );
}
