import { App, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { RepricerStack, stageFromContext } from '../lib/repricer-stack.js';

const app = new App();
const stage = stageFromContext(app);

// Environment-agnostic on purpose: synth needs no account, and nothing is looked up.
new RepricerStack(app, `RepricerApi-${stage}`, {
  stage,
  description: `Repricer API (${stage}): API Gateway REST API, Lambda handlers, DynamoDB table`,
});

// Any unacknowledged AwsSolutions finding fails the synth.
Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app, { verbose: true }));
