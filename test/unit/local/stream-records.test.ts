import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { toLambdaAttribute, toLambdaRecord } from '../../../tools/local/stream-records.js';

const ARN = 'arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/2026-01-01T00:00:00.000';

describe('toLambdaAttribute', () => {
  it('keeps the wire encoding Lambda passes on: binary values as base64 text', () => {
    expect(toLambdaAttribute({ B: new Uint8Array([1, 2, 3]) })).toEqual({ B: 'AQID' });
    expect(toLambdaAttribute({ BS: [new Uint8Array([255]), new Uint8Array([0, 1])] })).toEqual({ BS: ['/w==', 'AAE='] });
  });

  it('converts nested lists and maps all the way down', () => {
    expect(toLambdaAttribute({ M: { list: { L: [{ B: new Uint8Array([1]) }, { M: { n: { N: '1.5' } } }, { NULL: true }] } } })).toEqual({
      M: { list: { L: [{ B: 'AQ==' }, { M: { n: { N: '1.5' } } }, { NULL: true }] } },
    });
  });

  it.each([[{ S: 'text' }], [{ N: '-12.5' }], [{ BOOL: false }], [{ SS: ['a', 'b'] }], [{ NS: ['1', '2'] }], [{ NULL: true }]])(
    'keeps %j as it is',
    (value) => {
      expect(toLambdaAttribute(value)).toEqual(value);
    },
  );
});

describe('toLambdaRecord', () => {
  const record: _Record = {
    eventID: 'e1',
    eventName: 'REMOVE',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'ddblocal',
    dynamodb: {
      ApproximateCreationDateTime: new Date('2026-03-04T05:06:00Z'),
      Keys: { pk: { S: 'p' } },
      SequenceNumber: '000000000000000000042',
      SizeBytes: 10,
      StreamViewType: 'KEYS_ONLY',
    },
    userIdentity: { PrincipalId: 'dynamodb.amazonaws.com', Type: 'Service' },
  };

  it("gives Lambda's record: epoch seconds, the stream's ARN, no images a KEYS_ONLY stream does not have", () => {
    expect(toLambdaRecord(record, ARN)).toEqual({
      eventID: 'e1',
      eventName: 'REMOVE',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'ddblocal',
      dynamodb: {
        ApproximateCreationDateTime: Date.parse('2026-03-04T05:06:00Z') / 1000,
        Keys: { pk: { S: 'p' } },
        SequenceNumber: '000000000000000000042',
        SizeBytes: 10,
        StreamViewType: 'KEYS_ONLY',
      },
      // A deletion by TTL, spelt as Lambda's event spells it.
      userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
      eventSourceARN: ARN,
    });
  });
});
