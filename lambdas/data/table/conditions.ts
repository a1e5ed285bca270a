import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/**
 * A write refused because its condition did not hold: the expected answer to a lost race or a
 * repeat, not a fault. Matched by name as well, because lib-dynamodb's errors and errors that
 * crossed a module copy are not always instances of the SDK's class.
 */
export const isConditionFailure = (error: unknown): error is ConditionalCheckFailedException =>
  error instanceof ConditionalCheckFailedException || (error as { name?: unknown } | undefined)?.name === 'ConditionalCheckFailedException';
