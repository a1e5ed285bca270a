import { Logger } from '@aws-lambda-powertools/logger';

/** One structured JSON logger per container; the service name tags every line. */
export const logger = new Logger({ serviceName: 'repricer-api' });
