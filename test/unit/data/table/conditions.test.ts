import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { isConditionFailure } from '../../../../lambdas/data/table/conditions.js';

describe('isConditionFailure', () => {
  it("knows the SDK's exception, and an error of that name from another copy of the SDK", () => {
    expect(isConditionFailure(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }))).toBe(true);
    expect(isConditionFailure(Object.assign(new Error('no'), { name: 'ConditionalCheckFailedException' }))).toBe(true);
  });

  it('is false for any other failure, a cancelled transaction included', () => {
    expect(isConditionFailure(new TransactionCanceledException({ message: 'cancelled', $metadata: {} }))).toBe(false);
    expect(isConditionFailure(new Error('timeout'))).toBe(false);
    expect(isConditionFailure(undefined)).toBe(false);
    expect(isConditionFailure('ConditionalCheckFailedException')).toBe(false);
  });
});
