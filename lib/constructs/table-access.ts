import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { GLOBAL_SECONDARY_INDEXES } from '../table-schema.js';

/**
 * The DynamoDB actions the code uses, named one by one. Unlike `grantReadData`, the read set
 * leaves out `Scan` (no request path may scan) and the stream actions (the table has no stream).
 * Transactions are authorized per contained action, so they need no action of their own.
 */
export const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
] as const;

export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

export type TableAccess = 'none' | 'read' | 'readWrite';

/** Index ARNs listed by name, so no policy holds an `index/*` wildcard. */
const indexArns = (table: ITable): string[] =>
  GLOBAL_SECONDARY_INDEXES.map((index) => `${table.tableArn}/index/${index.indexName}`);

export const grantTableAccess = (role: IRole, table: ITable, access: TableAccess): void => {
  if (access === 'none') return;
  role.addToPrincipalPolicy(
    new PolicyStatement({ actions: [...TABLE_READ_ACTIONS], resources: [table.tableArn, ...indexArns(table)] }),
  );
  if (access === 'readWrite') {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [...TABLE_WRITE_ACTIONS], resources: [table.tableArn] }));
  }
};

/** The authorizer reads client items and counts failed logins on them, nothing else. */
export const grantAuthorizerTableAccess = (role: IRole, table: ITable): void => {
  grantTableAccess(role, table, 'read');
  role.addToPrincipalPolicy(new PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [table.tableArn] }));
};
