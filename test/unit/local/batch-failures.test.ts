import { batchFailure, reportedFailures, thrownFailure } from '../../../tools/local/batch-failures.js';

/** How Lambda reads a partial batch response (ReportBatchItemFailures). */
describe('batchFailure', () => {
  const ids = ['s1', 's2', 's3', 's4'];

  it.each([
    ['no answer', undefined],
    ['null', null],
    ['an object without batchItemFailures', {}],
    ['a null list', { batchItemFailures: null }],
    ['an empty list', { batchItemFailures: [] }],
  ])('reads %s as success', (_, response) => {
    expect(batchFailure(ids, response)).toBeUndefined();
  });

  it('fails the batch from the earliest item reported, whatever the order of the list', () => {
    const failure = batchFailure(ids, { batchItemFailures: [{ itemIdentifier: 's4' }, { itemIdentifier: 's2' }] });
    expect(failure?.failedFrom).toBe(1);
    expect(failure?.error.message).toContain('s2');
  });

  it.each([
    ['an identifier not in the batch', { batchItemFailures: [{ itemIdentifier: 's9' }] }],
    ['an empty identifier', { batchItemFailures: [{ itemIdentifier: '' }] }],
    ['a null identifier', { batchItemFailures: [{ itemIdentifier: null }] }],
    ['a misspelt key', { batchItemFailures: [{ itemIdentifer: 's2' }] }],
    ['a list that is not a list', { batchItemFailures: 's2' }],
    ['one bad identifier among good ones', { batchItemFailures: [{ itemIdentifier: 's3' }, { itemIdentifier: 'nope' }] }],
  ])('reads %s as a failure of the whole batch', (_, response) => {
    expect(batchFailure(ids, response)?.failedFrom).toBe(0);
  });
});

describe('reportedFailures', () => {
  const ids = ['a1', 'b1', 'a2', 'b2'];

  it('names every item reported, so a FIFO queue can fail each group from its own first one', () => {
    expect(reportedFailures(ids, { batchItemFailures: [{ itemIdentifier: 'a2' }, { itemIdentifier: 'a1' }] })).toEqual({
      kind: 'items',
      ids: new Set(['a2', 'a1']),
    });
  });

  it('reads an empty list as success and a malformed one as a failure of all', () => {
    expect(reportedFailures(ids, { batchItemFailures: [] })).toBeUndefined();
    expect(reportedFailures(ids, { batchItemFailures: [{ itemIdentifier: 'zz' }] })?.kind).toBe('all');
  });
});

describe('thrownFailure', () => {
  it('fails the whole batch with the error thrown', () => {
    const error = new Error('boom');
    expect(thrownFailure(error)).toEqual({ failedFrom: 0, error });
  });

  it('wraps what is not an Error', () => {
    expect(thrownFailure('text').error.message).toContain('text');
  });
});
