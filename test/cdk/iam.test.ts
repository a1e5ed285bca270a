import type { RouteDefinition } from '../../lib/routes.js';
import { ROUTES } from '../../lib/routes.js';
import {
  actionsOf,
  functionNamed,
  resourcesOfType,
  roleStatements,
  synthStack,
  type PolicyStatementJson,
  type SynthesizedStack,
} from './stack-fixture.js';

const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:PartiQLInsert',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PartiQLDelete',
];

const dynamoActions = (statements: PolicyStatementJson[]): string[] =>
  statements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));

const routeNamed = (name: string): RouteDefinition => {
  const route = ROUTES.find((candidate) => candidate.name === name);
  if (!route) throw new Error(`No route ${name}`);
  return route;
};

describe('IAM least privilege', () => {
  let synthesized: SynthesizedStack;
  const statementsOf = (name: string) => roleStatements(synthesized.template, functionNamed(synthesized.template, name)[0]);

  beforeAll(() => {
    synthesized = synthStack();
  });

  it('gives ListOffers (read) no write action on the table', () => {
    // Prepare
    expect(routeNamed('ListOffers').tableAccess).toBe('read');

    // Act
    const actions = dynamoActions(statementsOf('ListOffers'));

    // Assess
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:GetItem']));
    for (const action of WRITE_ACTIONS) expect(actions).not.toContain(action);
    expect(actions).not.toContain('dynamodb:Scan');
  });

  it('lets CreateRepricer (readWrite) write to the table itself', () => {
    // Prepare
    expect(routeNamed('CreateRepricer').tableAccess).toBe('readWrite');

    // Act
    const statements = statementsOf('CreateRepricer');
    const writes = statements.filter((statement) => actionsOf(statement).includes('dynamodb:PutItem'));

    // Assess
    expect(dynamoActions(statements)).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query']),
    );
    expect(writes).toEqual([expect.objectContaining({ Resource: { 'Fn::GetAtt': [expect.stringMatching(/^DataTable/), 'Arn'] } })]);
  });

  it.each(ROUTES)('$name gets exactly the write actions its tableAccess ($tableAccess) allows', (route) => {
    const actions = dynamoActions(statementsOf(route.name));
    const writes = actions.filter((action) => WRITE_ACTIONS.includes(action));
    expect(writes.length > 0).toBe(route.tableAccess === 'readWrite');
  });

  it('lets the authorizer read and update, but not put or delete', () => {
    const actions = dynamoActions(statementsOf('Authorizer'));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem']));
    for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(actions).not.toContain(action);
    }
  });

  it('has no wildcard action anywhere, and no wildcard resource except for X-Ray and the stream reader\'s ListStreams', () => {
    // Act
    const statements = Object.values(resourcesOfType(synthesized.template, 'AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as PolicyStatementJson[],
    );

    // Assess
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      for (const action of actionsOf(statement)) expect(action).not.toMatch(/\*/);
      if (JSON.stringify(statement.Resource).includes('*')) {
        expect(statement.Resource).toBe('*');
        // Neither X-Ray's two actions nor dynamodb:ListStreams (which a stream event source needs) take a resource.
        const xray = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
        expect([xray, ['dynamodb:ListStreams', ...xray]]).toContainEqual(actionsOf(statement).sort());
      }
    }
  });

  it('lets only the stream reader list streams', () => {
    // Act
    const listing = Object.entries(resourcesOfType(synthesized.template, 'AWS::IAM::Policy')).filter(([, policy]) =>
      (policy.Properties.PolicyDocument.Statement as PolicyStatementJson[]).some((statement) => actionsOf(statement).includes('dynamodb:ListStreams')),
    );

    // Assess
    expect(listing.map(([id]) => id)).toEqual([expect.stringMatching(/^ListsForwarderRole/)]);
  });

  it('names the table indexes one by one in read grants', () => {
    const read = statementsOf('ListOffers').find((statement) => actionsOf(statement).includes('dynamodb:Query'));
    expect(JSON.stringify(read?.Resource)).toContain('/index/byCompetitors');
    expect(JSON.stringify(read?.Resource)).not.toContain('/index/*');
  });
});
