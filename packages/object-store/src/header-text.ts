/**
 * JSON text an HTTP header can carry. Custom metadata travels in headers (GCS answers a media
 * download with every `x-goog-meta-*`), and a header value cannot hold U+007F (DEL), which
 * JSON.stringify leaves raw (it escapes only U+0000..U+001F): a name, mimeType, key or
 * metadata value with DEL made every read of its version fail ("Invalid header value char").
 * Its `\u007f` escape parses back to the same text.
 */
export function headerSafeJson(json: string): string {
  return json.replace(/\u007f/g, "\\u007f");
}
