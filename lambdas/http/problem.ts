/**
 * RFC 9457 problem details: the body of every non-2xx response, built here and nowhere else
 * (the local server and the API Gateway gateway responses reuse these builders).
 */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const WWW_AUTHENTICATE = 'Basic realm="repricer", charset="UTF-8"';

/** Stable problem type URIs; generic statuses use `about:blank` with the HTTP title. */
export const PROBLEM_TYPES = {
  validation: 'urn:repricer:problem:validation',
  conflict: 'urn:repricer:problem:conflict',
  unprocessable: 'urn:repricer:problem:unprocessable',
  blank: 'about:blank',
} as const;

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly FieldError[];
  /** Extension member, e.g. the id of the repricer a 409 collides with. */
  readonly [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export const titleFor = (status: number): string => TITLES[status] ?? 'Error';

export const problem = (status: number, detail: string, extra: { type?: string; errors?: readonly FieldError[]; [key: string]: unknown } = {}): Problem => {
  const { type = PROBLEM_TYPES.blank, errors, ...extensions } = extra;
  return {
    type,
    title: titleFor(status),
    status,
    detail,
    ...(errors ? { errors } : {}),
    ...extensions,
  };
};

/** The fixed problems that do not depend on the request. */
export const STANDARD_PROBLEMS = {
  unauthorized: problem(401, 'Valid HTTP Basic credentials are required.'),
  forbidden: problem(403, 'These credentials do not grant access to this resource.'),
  notFound: problem(404, 'No resource exists at this path.'),
  methodNotAllowed: problem(405, 'This method is not supported on this path.'),
  tooLarge: problem(413, 'The request body exceeds 16 KiB.'),
  unsupportedMediaType: problem(415, 'The request body must be application/json.'),
  throttled: problem(429, 'Too many requests; slow down and retry later.'),
  quotaExceeded: problem(429, "This client's daily request quota is used up; it renews at 00:00 UTC."),
  internal: problem(500, 'An unexpected error occurred.'),
  unavailable: problem(503, 'The service is temporarily overloaded; retry after the indicated delay.'),
  timeout: problem(504, 'The request took too long to process.'),
} as const;
