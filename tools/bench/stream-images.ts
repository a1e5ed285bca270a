import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue as LambdaAttributeValue } from 'aws-lambda';

/**
 * Stream record images as Lambda delivers them (DynamoDB JSON, binary values as base64 text)
 * turned into items as the document client reads them (binary values as bytes), so their size
 * is measured as DynamoDB measures it: a binary attribute by its bytes, not its base64 text.
 */
type LambdaImage = Record<string, LambdaAttributeValue>;

const toSdk = (value: LambdaAttributeValue): AttributeValue => {
  if (value.B !== undefined) return { B: Buffer.from(value.B, 'base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((b) => Buffer.from(b, 'base64')) };
  if (value.L !== undefined) return { L: value.L.map(toSdk) };
  if (value.M !== undefined) return { M: toSdkImage(value.M) };
  return value;
};

const toSdkImage = (image: LambdaImage): Record<string, AttributeValue> =>
  Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toSdk(value)]));

export const nativeImage = (image: LambdaImage | undefined): Record<string, NativeAttributeValue> | undefined =>
  image ? unmarshall(toSdkImage(image)) : undefined;

/** `pk` and `sk` of a record's keys, as one string (the same form `keyOf` gives for a written key). */
export const recordKey = (keys: LambdaImage | undefined): string => `${keys?.pk?.S ?? ''}\u0000${keys?.sk?.S ?? ''}`;

export const keyOf = (key: Record<string, unknown>): string => `${String(key.pk)}\u0000${String(key.sk)}`;
