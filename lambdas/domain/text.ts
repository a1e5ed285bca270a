import * as z from 'zod';

/**
 * The one rule for text the service stores or queues (ids, codes, names, URLs, keys echoed in
 * import errors). Every string travels as JSON in SQS messages, DynamoDB items and log lines,
 * so it must be a character sequence all three carry unchanged:
 * - well-formed Unicode: no unpaired UTF-16 surrogate (`"\ud800"` in JSON), which has no UTF-8
 *   form (encodeURIComponent throws, DynamoDB and SQS cannot hold it);
 * - only the characters SQS accepts in a message body: #x9, #xA, #xD, #x20-#xD7FF,
 *   #xE000-#xFFFD and #x10000 up. SQS refuses a message holding any other (the C0 controls,
 *   U+FFFE, U+FFFF) with InvalidMessageContents, and JSON does not escape them.
 * Refused as a 400 naming the field, where input enters: the API's schemas, imports and the CLI.
 */
export const STORABLE_TEXT_MESSAGE = 'Must be well-formed Unicode without U+FFFE, U+FFFF or control characters (tab and line breaks allowed).';

/** The characters of a storable text; with the `u` flag a lone surrogate matches no range. */
const STORABLE = /^[\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const NOT_STORABLE = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export const isStorableText = (text: string): boolean => STORABLE.test(text);

/** Adds the check to a string schema (it stays a string schema, so bounds can follow). */
export const storable = <S extends z.ZodType<string>>(schema: S): S => schema.refine(isStorableText, STORABLE_TEXT_MESSAGE);

/** A string schema that refuses text the service could not store or queue. */
export const text = (): z.ZodString => storable(z.string());

/**
 * Text from input that must be echoed (an unknown key in an import error) made storable: each
 * character outside the rule becomes U+FFFD, and the result is cut at `maxLength` UTF-16 units
 * without splitting a surrogate pair, an ellipsis marking the cut.
 */
export const toStorableText = (input: string, maxLength = Number.POSITIVE_INFINITY): string => {
  const clean = input.replace(NOT_STORABLE, '\uFFFD');
  if (clean.length <= maxLength) return clean;
  let end = Math.max(0, maxLength - 1);
  // A high surrogate at the cut would be left unpaired: cut before it.
  const last = clean.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${clean.slice(0, end)}…`;
};
