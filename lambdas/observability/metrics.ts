/** The service's CloudWatch metrics publisher (embedded metric format), one namespace for the API and the loop. */
import { Metrics } from '@aws-lambda-powertools/metrics';

export const METRICS_NAMESPACE = 'RepricerApi';

export const createMetrics = (): Metrics => new Metrics({ namespace: METRICS_NAMESPACE, serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'repricer-api' });
