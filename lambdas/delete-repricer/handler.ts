import { STANDARD_PROBLEMS } from '../shared/http/problem.js';
import { problemResponse } from '../shared/http/responses.js';

// Not implemented yet: answers 404 like an unknown path.
export const handler = async () => problemResponse(STANDARD_PROBLEMS.notFound);
