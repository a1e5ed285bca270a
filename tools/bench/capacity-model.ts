/**
 * DynamoDB's published read-capacity model, applied to the items a request actually returned,
 * so figures can be printed next to what DynamoDB Local reports. Item size is the sum of
 * attribute name lengths and value sizes (strings UTF-8 bytes, numbers about 1 byte per two
 * digits plus 1, binary its length, booleans and nulls 1, lists and maps 3 bytes plus 1 per element).
 * A Query is charged on the summed size of what it returns, rounded up to 4 KB; a GetItem on
 * the item's size. Strongly consistent reads cost 1 unit per 4 KB, eventually consistent 0.5.
 */
export const valueSize = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace(/[.-]|^0+/g, '').length / 2) + 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueSize(v), 0);
  if (typeof value === 'object') return 3 + Object.entries(value).reduce((sum, [k, v]) => sum + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  return 0;
};

export const itemSize = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);

export const readUnits = (bytes: number, consistent: boolean): number => Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);
