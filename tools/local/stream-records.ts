/**
 * DynamoDB Streams records as the SDK returns them, turned into the records Lambda puts in a
 * `DynamoDBStreamEvent`. They differ only in encoding: the SDK decodes the wire JSON (binary
 * values to bytes, the creation time to a Date), while Lambda passes the JSON on as it is
 * (binary values stay base64 strings, the creation time stays epoch seconds).
 */
import type { AttributeValue as SdkAttributeValue, _Record as SdkRecord } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord, StreamRecord } from 'aws-lambda';

type Image = Record<string, AttributeValue>;

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

export const toLambdaAttribute = (value: SdkAttributeValue): AttributeValue => {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: [...value.SS] };
  if (value.NS !== undefined) return { NS: [...value.NS] };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaAttribute) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  throw new Error(`Unsupported attribute value with keys ${Object.keys(value).join(', ')}`);
};

export const toLambdaImage = (image: Record<string, SdkAttributeValue>): Image =>
  Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toLambdaAttribute(value)]));

/** Only the fields the record has, so a KEYS_ONLY record has no images at all (as on AWS). */
const toStreamRecord = (record: NonNullable<SdkRecord['dynamodb']>): StreamRecord => {
  const converted: StreamRecord = {};
  if (record.ApproximateCreationDateTime) converted.ApproximateCreationDateTime = record.ApproximateCreationDateTime.getTime() / 1000;
  if (record.Keys) converted.Keys = toLambdaImage(record.Keys);
  if (record.NewImage) converted.NewImage = toLambdaImage(record.NewImage);
  if (record.OldImage) converted.OldImage = toLambdaImage(record.OldImage);
  if (record.SequenceNumber !== undefined) converted.SequenceNumber = record.SequenceNumber;
  if (record.SizeBytes !== undefined) converted.SizeBytes = record.SizeBytes;
  if (record.StreamViewType !== undefined) converted.StreamViewType = record.StreamViewType;
  return converted;
};

/**
 * `eventSourceARN` is the stream's ARN, which GetRecords does not repeat on each record but
 * Lambda adds. `userIdentity` is only on deletions made by TTL, spelled as in the stream's
 * record documentation (`type`, `principalId`), not as the SDK's model (`Type`, `PrincipalId`).
 */
export const toLambdaRecord = (record: SdkRecord, streamArn: string): DynamoDBRecord => {
  const converted: DynamoDBRecord = {};
  if (record.eventID !== undefined) converted.eventID = record.eventID;
  if (record.eventName !== undefined) converted.eventName = record.eventName;
  if (record.eventVersion !== undefined) converted.eventVersion = record.eventVersion;
  converted.eventSource = record.eventSource ?? 'aws:dynamodb';
  if (record.awsRegion !== undefined) converted.awsRegion = record.awsRegion;
  if (record.dynamodb) converted.dynamodb = toStreamRecord(record.dynamodb);
  if (record.userIdentity) converted.userIdentity = { type: record.userIdentity.Type, principalId: record.userIdentity.PrincipalId };
  converted.eventSourceARN = streamArn;
  return converted;
};

/** Every record the poller handles has one; a record without one could not be checkpointed. */
export const sequenceNumberOf = (record: DynamoDBRecord): string => {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  if (sequenceNumber === undefined) throw new Error(`Stream record ${record.eventID ?? '(no eventID)'} has no sequence number`);
  return sequenceNumber;
};
