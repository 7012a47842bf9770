/** UTF-8 chunking that never splits a character. */

const encoder = new TextEncoder();

/** The input limit of one send, in UTF-8 bytes. */
export const INPUT_LIMIT_BYTES = 64 * 1024;
/** The largest chunk handed to the multiplexer at once. */
export const CHUNK_BYTES = 256;

/** UTF-8 encodes `text` and splits it into chunks of at most `max` bytes on character boundaries. */
export function utf8Chunks(text: string, max = CHUNK_BYTES): Uint8Array[] {
  const bytes = encoder.encode(text);
  const chunks: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + max, bytes.length);
    // Step back over continuation bytes (10xxxxxx) so the next chunk starts on a lead byte.
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
    if (end === start) end = Math.min(start + max, bytes.length);
    chunks.push(bytes.subarray(start, end));
    start = end;
  }
  return chunks;
}

/** Byte length of `text` in UTF-8. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}
