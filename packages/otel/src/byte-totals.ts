import type { Attributes, Meter, ObservableCounter } from "@opentelemetry/api";

export const METRIC_BYTES_WRITTEN = "artifact.bytes.written";
export const METRIC_BYTES_READ = "artifact.bytes.read";

export type ByteDirection = "written" | "read";

/** One running total: what an operation of one adapter has moved in one direction. */
export interface ByteTotal {
  value: number;
}

interface ObservedTotal {
  readonly counter: ObservableCounter;
  readonly attributes: Attributes;
  readonly total: ByteTotal;
}

/**
 * The bytes counters of one meter, kept as running totals in this process and reported by
 * observable counters at each collection. A synchronous counter would hash its attribute set
 * on every add, which costs as much as a put of 1 KiB into memory; adding to a number costs
 * nothing. The exported data is the same monotonic sum. Totals are shared by every wrapper
 * on the meter (as a synchronous counter's series would be) and outlive a closed wrapper, so
 * bytes counted just before `close()` are still exported.
 */
class MeterByteTotals {
  readonly #counters: Record<ByteDirection, ObservableCounter>;
  readonly #totals = new Map<string, ObservedTotal>();

  constructor(meter: Meter) {
    this.#counters = {
      written: meter.createObservableCounter(METRIC_BYTES_WRITTEN, {
        description: "Bytes of the artifacts that were published (put, finished uploads).",
        unit: "By",
      }),
      read: meter.createObservableCounter(METRIC_BYTES_READ, {
        description: "Bytes of artifact data handed to callers (get, download reads).",
        unit: "By",
      }),
    };
    meter.addBatchObservableCallback((result) => {
      for (const { counter, total, attributes } of this.#totals.values()) {
        result.observe(counter, total.value, attributes);
      }
    }, Object.values(this.#counters));
  }

  /** The total of `direction` under `attributes` (an operation's own set), made on first use. */
  total(direction: ByteDirection, key: string, attributes: Attributes): ByteTotal {
    const fullKey = `${direction}\0${key}`;
    let observed = this.#totals.get(fullKey);
    if (observed === undefined) {
      observed = { counter: this.#counters[direction], attributes, total: { value: 0 } };
      this.#totals.set(fullKey, observed);
    }
    return observed.total;
  }
}

const totalsByMeter = new WeakMap<Meter, MeterByteTotals>();

/** The byte totals of `meter`: one set per meter, whose callback is registered once. */
export function byteTotalsOf(meter: Meter): MeterByteTotals {
  let totals = totalsByMeter.get(meter);
  if (totals === undefined) {
    totals = new MeterByteTotals(meter);
    totalsByMeter.set(meter, totals);
  }
  return totals;
}
