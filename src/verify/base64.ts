/** Standard base64 with padding, read strictly: Buffer.from ignores what is not base64, so the
 *  text is accepted only if encoding its bytes gives it back (no stray characters, no missing
 *  padding, no non-zero padding bits). */
export const decodeBase64 = (text: string): Buffer | null => {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
};

/** A SHA-256 hash written in base64, or null when the text is not exactly that. */
export const decodeHash = (text: string): Buffer | null => {
  const bytes = decodeBase64(text);
  return bytes !== null && bytes.length === 32 ? bytes : null;
};
