import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { SECRETS_KEY_ENV } from '../../lambdas/crypto/key-provider.js';

export interface SecretsKeyProps {
  readonly stage: string;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The KMS key that wraps the data keys of secrets kept in the table (lambdas/crypto/
 * envelope.ts): webhook signing secrets now, marketplace keys next. No role may use it unless
 * granted here, one action each: the function that seals a secret may only generate data keys,
 * the one that signs with it may only decrypt them. Each is told the key in SECRETS_KEY_ID.
 */
export class SecretsKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: SecretsKeyProps) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: `Wraps the data keys of secrets stored by the repricer (${props.stage})`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      // A key scheduled for deletion can still be saved for this long.
      pendingWindow: Duration.days(30),
    });
  }

  /** May create data keys (to seal), never decrypt them. */
  allowSealing(fn: LambdaFunction): void {
    this.grant(fn, 'kms:GenerateDataKey');
  }

  /** May decrypt data keys (to open), never create them. */
  allowOpening(fn: LambdaFunction): void {
    this.grant(fn, 'kms:Decrypt');
  }

  private grant(fn: LambdaFunction & IGrantable, action: string): void {
    this.key.grant(fn, action);
    fn.addEnvironment(SECRETS_KEY_ENV, this.key.keyArn);
  }
}
