/**
 * When an armed TCP fault strikes, judged on the client's bytes as they pass the proxy. A
 * trigger sees every client chunk of every connection, in order, before it is forwarded.
 */
export interface Trigger {
  /** The offset in `chunk` (of connection `link`) where the fault strikes, or undefined. */
  strikeAt(link: object, chunk: Buffer): number | undefined;
  /** `bytes` of connection `link` went to the server unharmed. */
  passed(link: object, bytes: Buffer): void;
}

/** Strikes once `count` more client bytes, over all connections, have gone to the server. */
export function afterClientBytes(count: number): Trigger {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`a byte count must be a non-negative integer, not ${count}`);
  }
  let remaining = count;
  return {
    // At chunk.length exactly: the whole chunk goes, then the fault (nothing after it passes).
    strikeAt: (_link, chunk) => (remaining <= chunk.length ? remaining : undefined),
    passed: (_link, bytes) => {
      remaining -= bytes.length;
    },
  };
}

/**
 * Strikes at the start of a coming client write, over all connections: the next one, or the
 * one after `skip` more. A write is one chunk as the proxy receives it, which for a protocol
 * that sends each request in one write (PostgreSQL's queries) is one request.
 */
export function atClientWrite(skip: number): Trigger {
  if (!Number.isSafeInteger(skip) || skip < 0) {
    throw new RangeError(`a write count must be a non-negative integer, not ${skip}`);
  }
  let passing = skip;
  return {
    strikeAt: () => (passing === 0 ? 0 : undefined),
    passed: () => {
      passing -= 1;
    },
  };
}

/**
 * Strikes where `text` (as bytes) first appears in one connection's client stream: the bytes
 * before the match pass, the fault meets the match itself. A match split across chunks is
 * found where it completes; its first part has passed by then.
 */
export function atClientText(text: string): Trigger {
  const needle = Buffer.from(text);
  if (needle.length === 0) throw new RangeError("the text to watch for must not be empty");
  // The last needle.length - 1 bytes of each connection, to find a match across chunks.
  const tails = new WeakMap<object, Buffer>();
  return {
    strikeAt: (link, chunk) => {
      const tail = tails.get(link) ?? Buffer.alloc(0);
      const found = Buffer.concat([tail, chunk]).indexOf(needle);
      return found < 0 ? undefined : Math.max(0, found - tail.length);
    },
    passed: (link, bytes) => {
      const joined = Buffer.concat([tails.get(link) ?? Buffer.alloc(0), bytes]);
      tails.set(link, joined.subarray(Math.max(0, joined.length - (needle.length - 1))));
    },
  };
}
