/** UTF-8 chunking that never splits a character, and the input size limit. */
import { AppError } from "../../base/errors.ts";

const encoder = new TextEncoder();

/** The input limit of one send, in UTF-8 bytes. */
export const INPUT_LIMIT_BYTES = 64 * 1024;
/**
 * The largest chunk. psmux pastes chunk by chunk (ADR 0011); tmux joins them into one buffer and one
 * invocation (platform/tmux.ts pasteArgs), because its server queues pane input losslessly.
 */
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

/**
 * Refuses text over {@link INPUT_LIMIT_BYTES} before anything is typed; returns its UTF-8 size.
 * @throws {AppError} INPUT_TOO_LARGE
 */
export function assertInputSize(text: string): number {
  const size = utf8Length(text);
  if (size > INPUT_LIMIT_BYTES) {
    throw new AppError(
      "INPUT_TOO_LARGE",
      `Cannot send ${size} bytes: the limit is ${INPUT_LIMIT_BYTES} bytes of UTF-8`,
      {
        suggestion: "nothing was typed; split the text or write it to a file first",
        data: { limit_bytes: INPUT_LIMIT_BYTES, size_bytes: size },
      },
    );
  }
  return size;
}

/** Byte length of `text` in UTF-8. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}
