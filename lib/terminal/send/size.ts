/** The input size limit of one send. */
import { AppError } from "../../../base/errors.ts";

const encoder = new TextEncoder();

/** The input limit of one send, in UTF-8 bytes. */
export const INPUT_LIMIT_BYTES = 64 * 1024;

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
