// RFC 4648 base32hex without padding. Its alphabet is in ASCII order and every character
// carries the next 5 bits, so comparing encodings as strings compares the bytes: a proper
// prefix of the input stays a prefix (or smaller), and the first differing bit decides.
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

export function encodeBase32Hex(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The bytes of a canonical encoding, or undefined when `text` is not one. */
export function decodeBase32Hex(text: string): Uint8Array | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >>> bits) & 255);
      buffer &= (1 << bits) - 1;
    }
  }
  const decoded = Uint8Array.from(bytes);
  return encodeBase32Hex(decoded) === text ? decoded : undefined;
}
