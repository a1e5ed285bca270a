import type { RouteDefinition } from '../../lambdas/config/routes.js';
import { ROUTES } from '../../lambdas/config/routes.js';
import { actionsOf, functionNamed, resourcesOfType, roleStatements, synthStack, type PolicyStatementJson, type SynthesizedStack } from './stack-fixture.js';

const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:PartiQLInsert',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PartiQLDelete',
];

const dynamoActions = (statements: PolicyStatementJson[]): string[] => statements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));

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
    expect(dynamoActions(statements)).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query']));
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

  it("has no wildcard action anywhere, and no wildcard resource except for X-Ray and the stream reader's ListStreams", () => {
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
    expect(listing.map(([id]) => id)).toEqual([expect.stringMatching(/^ChangesForwarderRole/)]);
  });

  it('names the table indexes one by one in read grants', () => {
    const read = statementsOf('ListOffers').find((statement) => actionsOf(statement).includes('dynamodb:Query'));
    expect(JSON.stringify(read?.Resource)).toContain('/index/byCompetitors');
    expect(JSON.stringify(read?.Resource)).not.toContain('/index/*');
  });

  describe('by key (dynamodb:LeadingKeys)', () => {
    type Grant = { read: string[]; write: string[] };
    /** The key prefixes a function may read and write, from its role's conditions. */
    const grantOf = (functionId: string): Grant => {
      const grant: Grant = { read: [], write: [] };
      for (const statement of roleStatements(synthesized.template, functionId)) {
        const actions = actionsOf(statement);
        if (!actions.some((action) => ['dynamodb:GetItem', 'dynamodb:UpdateItem'].includes(action))) continue;
        const keys = (statement as { Condition?: Record<string, Record<string, string[]>> }).Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
        if (!keys) throw new Error(`${functionId}: ${actions.join(',')} without a LeadingKeys condition`);
        if (actions.includes('dynamodb:GetItem')) grant.read.push(...keys);
        if (actions.includes('dynamodb:UpdateItem')) grant.write.push(...keys);
      }
      return { read: grant.read.sort(), write: grant.write.sort() };
    };
    const functionIds = () => Object.keys(resourcesOfType(synthesized.template, 'AWS::Lambda::Function'));

    it('conditions every item action of every function on the leading keys it needs', () => {
      // Act: grantOf throws on a statement without the condition
      const grants = functionIds().map((id) => [id, grantOf(id)] as const);

      // Assess
      expect(grants.length).toBeGreaterThan(ROUTES.length);
      // A key prefix ends with '#'; a directory index partition (queried by the index's key) is a whole value.
      for (const [, grant] of grants) for (const prefix of [...grant.read, ...grant.write]) expect(prefix).toMatch(/^[A-Z]+#\*$|^CONNECTIONS\*$/);
    });

    it('lets only the authorizer touch client items (password hashes, usage keys, login attempts), and nothing else', () => {
      // Act
      const touching = functionIds().filter((id) => Object.values(grantOf(id)).flat().includes('CLIENT#*'));

      // Assess
      expect(touching).toEqual([functionNamed(synthesized.template, 'Authorizer')[0]]);
      expect(grantOf(touching[0]!)).toEqual({ read: ['CLIENT#*'], write: ['CLIENT#*'] });
    });

    it.each([
      ['ListOffers', { read: ['T#*'], write: [] }],
      ['GetRepricer', { read: ['T#*'], write: [] }],
      ['CreateRepricer', { read: ['CONNECTOR#*', 'COUNTER#*', 'IDEMPOTENCY#*', 'T#*'], write: ['COUNTER#*', 'IDEMPOTENCY#*', 'T#*'] }],
      ['Ping', { read: [], write: [] }],
    ])('scopes %s to the tenant items it serves', (name, grant) => {
      const [functionId] = functionNamed(synthesized.template, name);
      expect(grantOf(functionId)).toEqual(grant);
    });

    it('lets only the connection PUT and DELETE put and delete connection uid lookups, which nothing updates', () => {
      // Act: every statement, of every function, that names the lookup prefix
      const lookups = functionIds().flatMap((id) =>
        roleStatements(synthesized.template, id)
          .filter((statement) => JSON.stringify((statement as { Condition?: unknown }).Condition ?? {}).includes('CONNUID#*'))
          .map((statement) => ({ id, actions: actionsOf(statement).sort() })),
      );
      const writers = lookups.filter((entry) => entry.actions.includes('dynamodb:PutItem'));

      // Assess
      expect(writers.map((entry) => entry.id).sort()).toEqual(
        [functionNamed(synthesized.template, 'PutConnection')[0], functionNamed(synthesized.template, 'DeleteConnection')[0]].sort(),
      );
      for (const writer of writers) expect(writer.actions).toEqual(['dynamodb:DeleteItem', 'dynamodb:PutItem']);
    });
  });
});
