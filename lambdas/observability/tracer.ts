import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * One X-Ray tracer per container. Every AWS SDK client is captured with it, so each DynamoDB
 * and SQS call shows as a subsegment of the invocation; it is off outside Lambda (local runs
 * and tests), where there is no X-Ray daemon. Responses are not captured
 * (`POWERTOOLS_TRACER_CAPTURE_RESPONSE=false` in the stack): they hold client data.
 */
export const tracer = new Tracer({ serviceName: 'repricer-api' });
