import type { APIGatewayProxyResult } from 'aws-lambda';
import { JSON_CONTENT_TYPE, PROBLEM_CONTENT_TYPE, type Problem } from './problem.js';

/** Headers every response carries; API clients must not sniff or cache tenant data. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
};

export const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode,
  headers: { ...SECURITY_HEADERS, 'Content-Type': JSON_CONTENT_TYPE, ...headers },
  body: JSON.stringify(body),
});

export const problemResponse = (body: Problem, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode: body.status,
  headers: { ...SECURITY_HEADERS, 'Content-Type': PROBLEM_CONTENT_TYPE, ...headers },
  body: JSON.stringify(body),
});
