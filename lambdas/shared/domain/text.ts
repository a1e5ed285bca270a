import * as z from 'zod';

/**
 * Well-formed Unicode: no unpaired UTF-16 surrogate (`"\ud800"` in JSON). Such a string has no
 * UTF-8 form, so it can be neither a key part (encodeURIComponent throws), nor a header, nor
 * stored or logged faithfully: every schema whose strings reach a key, a log line or a header
 * refuses it, as a 400 naming the field.
 */
export const WELL_FORMED_MESSAGE = 'Must be well-formed Unicode text (it contains an unpaired surrogate).';

export const isWellFormed = (text: string): boolean => text.isWellFormed();

/** Adds the check to a string schema (it stays a string schema, so bounds can follow). */
export const wellFormed = <S extends z.ZodType<string>>(schema: S): S => schema.refine(isWellFormed, WELL_FORMED_MESSAGE);

/** A string schema that refuses ill-formed text. */
export const text = (): z.ZodString => wellFormed(z.string());
