import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type * as z from 'zod';

/**
 * Listing items carry the whole API record, compressed: DynamoDB bills writes per started KB
 * and a record of about 1.1 KB compresses to about 300 bytes with a dictionary of its field
 * names, so each listing write and each index entry costs one write unit instead of two.
 * The first byte names the dictionary, so a new dictionary can be introduced (and old items
 * still read) while a rebuild rewrites them.
 */
export interface RecordCodec<R> {
  encode(record: R): Uint8Array;
  decode(bytes: Uint8Array): R;
}

/** A dictionary for deflate: the JSON text of a record template (its field names and constant values). */
export const dictionaryOf = (template: unknown): Buffer => Buffer.from(JSON.stringify(template), 'utf8');

export const recordCodec = <S extends z.ZodType>(schema: S, dictionaries: readonly Buffer[]): RecordCodec<z.output<S>> => {
  const current = dictionaries.length - 1;
  const dictionary = dictionaries[current];
  if (dictionary === undefined) throw new Error('A record codec needs at least one dictionary');
  return {
    encode: (record) => {
      const body = deflateRawSync(Buffer.from(JSON.stringify(record), 'utf8'), { dictionary });
      return Buffer.concat([Buffer.of(current), body]);
    },
    decode: (bytes) => {
      const used = dictionaries[bytes[0] ?? -1];
      if (used === undefined) throw new Error(`Unknown record dictionary ${bytes[0]}`);
      const text = inflateRawSync(bytes.subarray(1), { dictionary: used }).toString('utf8');
      return schema.parse(JSON.parse(text));
    },
  };
};
