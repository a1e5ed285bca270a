import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { planBatches, sqsSender, type QueueMessage } from '../../../lambdas/queue/sender.js';

const message = (n: number, body = `{"n":${n}}`): QueueMessage => ({ groupId: 'g', deduplicationId: `d-${n}`, body });

describe('planBatches', () => {
  it('leaves out what SQS never takes, and splits the rest in order by 10 entries and 256 KiB', () => {
    const big = 'x'.repeat(100 * 1024);
    const messages = [
      message(0),
      message(1, 'bad\uffff'),
      ...[2, 3, 4].map((n) => message(n, big)),
      message(5, 'y'.repeat(256 * 1024 + 1)),
      ...Array.from({ length: 12 }, (_, i) => message(6 + i)),
    ];

    const { batches, refused } = planBatches(messages);

    expect(refused.map((r) => [r.message.deduplicationId, r.reason])).toEqual([
      ['d-1', 'InvalidMessageContents'],
      ['d-5', 'MessageTooLong'],
    ]);
    expect(batches.map((batch) => batch.map((m) => m.deduplicationId))).toEqual([
      ['d-0', 'd-2', 'd-3'],
      ['d-4', ...Array.from({ length: 9 }, (_, i) => `d-${6 + i}`)],
      ['d-15', 'd-16', 'd-17'],
    ]);
  });
});

describe('sqsSender', () => {
  const sqs = mockClient(SQSClient);
  afterEach(() => sqs.reset());

  it("answers SQS's sender faults as refused messages, so the others are not sent again", async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '1', Code: 'InvalidMessageContents', SenderFault: true }] });
    const refused = await sqsSender('https://sqs.local/q.fifo', new SQSClient({ region: 'eu-west-1' })).send([message(0), message(1)]);
    expect(refused).toEqual([{ message: message(1), reason: 'InvalidMessageContents' }]);
  });

  it('rejects on a failure a retry could mend', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }] });
    await expect(sqsSender('https://sqs.local/q.fifo', new SQSClient({ region: 'eu-west-1' })).send([message(0)])).rejects.toThrow(/InternalError/);
  });
});
