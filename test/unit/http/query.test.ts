import type { APIGatewayProxyEvent } from 'aws-lambda';
import { HttpProblem } from '../../../lambdas/http/errors.js';
import { singleQueryParameters } from '../../../lambdas/http/query.js';

const event = (single: Record<string, string> | null, multi: Record<string, string[]> | null) =>
  ({ queryStringParameters: single, multiValueQueryStringParameters: multi }) as unknown as APIGatewayProxyEvent;

describe('singleQueryParameters', () => {
  it('returns the parameters as a plain object', () => {
    expect(singleQueryParameters(event({ _limit: '5', _sort: 'id' }, { _limit: ['5'], _sort: ['id'] }))).toEqual({ _limit: '5', _sort: 'id' });
  });

  it.each([
    [null, null],
    [{}, {}],
  ])('is empty without parameters (%p)', (single, multi) => {
    expect(singleQueryParameters(event(single, multi))).toEqual({});
  });

  it('refuses every repeated parameter by name', () => {
    // Arrange
    const repeated = event({ _limit: '10', _sort: 'id', competitiveness: 'b' }, { _limit: ['5', '10'], _sort: ['id'], competitiveness: ['a', 'b'] });

    // Act
    let thrown: unknown;
    try {
      singleQueryParameters(repeated);
    } catch (error) {
      thrown = error;
    }

    // Assert
    expect(thrown).toBeInstanceOf(HttpProblem);
    expect((thrown as HttpProblem).problem).toEqual({
      type: 'urn:repricer:problem:validation',
      title: 'Bad Request',
      status: 400,
      detail: 'The query parameters are not valid.',
      errors: [
        { field: '_limit', message: 'This parameter may be given only once.' },
        { field: 'competitiveness', message: 'This parameter may be given only once.' },
      ],
    });
  });

  it('keeps an empty value, so the validation can refuse it', () => {
    expect(singleQueryParameters(event({ competitiveness: '' }, { competitiveness: [''] }))).toEqual({ competitiveness: '' });
  });
});
