import { ConditionalCheckFailedException, TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClientResolvedConfig,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AwsStub } from 'aws-sdk-client-mock';
import { GLOBAL_SECONDARY_INDEXES } from '../../../lambdas/config/table-schema.js';

/**
 * A small in-memory model of the one table, behind aws-sdk-client-mock, for unit tests of code
 * whose correctness lies in what it reads back (ranked lists, node counts, conditional writes).
 * It serves exactly the expression forms the data layer uses and throws on any other, so a
 * change of expression fails a test instead of being misread. Like DynamoDB it refuses
 * consistent reads of a GSI and two writes of one item in one transaction or batch.
 */
export const TABLE = 'test-table';

type Item = Record<string, unknown>;
type Names = Record<string, string> | undefined;
type Values = Record<string, unknown> | undefined;

const keyOf = (item: Item) => `${String(item.pk)}\u0000${String(item.sk)}`;
const clone = <T>(value: T): T => structuredClone(value);

const validation = (message: string) => Object.assign(new Error(message), { name: 'ValidationException' });

const compare = (a: unknown, b: unknown): number => {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

// Condition expressions: attribute_exists / attribute_not_exists, comparisons, AND, OR, parentheses.
const tokenize = (expression: string): string[] => expression.match(/\(|\)|<>|<=|>=|=|<|>|,|[#:]?[A-Za-z_][\w.]*/g) ?? [];

const evaluateCondition = (expression: string, item: Item | undefined, names: Names, values: Values): boolean => {
  const tokens = tokenize(expression);
  let at = 0;
  const name = (token: string) => (token.startsWith('#') ? (names?.[token] ?? fail(`unknown name ${token}`)) : token);
  const value = (token: string) => {
    if (!token.startsWith(':')) return item?.[name(token)];
    if (!values || !(token in values)) fail(`unknown value ${token}`);
    return values![token];
  };
  const fail = (message: string): never => {
    throw new Error(`fake-table: cannot evaluate condition "${expression}": ${message}`);
  };
  const expect = (token: string) => {
    if (tokens[at++] !== token) fail(`expected ${token}`);
  };
  const primary = (): boolean => {
    const token = tokens[at++] ?? fail('unexpected end');
    if (token === '(') {
      const result = disjunction();
      expect(')');
      return result;
    }
    if (token === 'attribute_exists' || token === 'attribute_not_exists') {
      expect('(');
      const attribute = name(tokens[at++] ?? fail('no attribute'));
      expect(')');
      const exists = item !== undefined && item[attribute] !== undefined;
      return token === 'attribute_exists' ? exists : !exists;
    }
    const operator = tokens[at++] ?? fail('no operator');
    const right = tokens[at++] ?? fail('no operand');
    const left = value(token);
    const other = value(right);
    if (left === undefined || other === undefined) return operator === '<>';
    const order = compare(left, other);
    switch (operator) {
      case '=':
        return order === 0;
      case '<>':
        return order !== 0;
      case '<':
        return order < 0;
      case '<=':
        return order <= 0;
      case '>':
        return order > 0;
      case '>=':
        return order >= 0;
      default:
        return fail(`operator ${operator}`);
    }
  };
  const conjunction = (): boolean => {
    let result = primary();
    while (tokens[at] === 'AND') {
      at++;
      result = primary() && result;
    }
    return result;
  };
  const disjunction = (): boolean => {
    let result = conjunction();
    while (tokens[at] === 'OR') {
      at++;
      result = conjunction() || result;
    }
    return result;
  };
  const result = disjunction();
  if (at !== tokens.length) fail(`trailing ${tokens.slice(at).join(' ')}`);
  return result;
};

/** `SET a = :x, b = :y ADD c :d REMOVE e`: the clauses the data layer writes. */
const applyUpdate = (before: Item | undefined, key: Item, expression: string, names: Names, values: Values): Item => {
  const item: Item = clone(before ?? { ...key });
  const name = (token: string) => (token.startsWith('#') ? names?.[token] : token);
  const value = (token: string) => {
    if (!values || !(token in values)) throw new Error(`fake-table: unknown value ${token} in "${expression}"`);
    return clone(values[token]);
  };
  const clauses = expression
    .split(/\b(?=SET |ADD |REMOVE )/)
    .map((clause) => clause.trim())
    .filter(Boolean);
  for (const clause of clauses) {
    const [keyword, ...rest] = clause.split(' ');
    const parts = rest
      .join(' ')
      .split(',')
      .map((part) => part.trim());
    for (const part of parts) {
      if (keyword === 'SET') {
        const match = /^([#\w]+) = (:\w+)$/.exec(part);
        if (!match) throw new Error(`fake-table: unsupported SET "${part}"`);
        item[name(match[1]!)!] = value(match[2]!);
      } else if (keyword === 'ADD') {
        const match = /^([#\w]+) (:\w+)$/.exec(part);
        if (!match) throw new Error(`fake-table: unsupported ADD "${part}"`);
        const attribute = name(match[1]!)!;
        item[attribute] = Number(item[attribute] ?? 0) + Number(value(match[2]!));
      } else if (keyword === 'REMOVE') {
        delete item[name(part)!];
      } else {
        throw new Error(`fake-table: unsupported clause "${clause}"`);
      }
    }
  }
  return item;
};

interface QueryInput {
  IndexName?: string;
  KeyConditionExpression: string;
  FilterExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
  ScanIndexForward?: boolean;
  Limit?: number;
  ExclusiveStartKey?: Item;
  ConsistentRead?: boolean;
}

export type Intercept = (command: string, input: Record<string, unknown>) => void;

export class FakeTable {
  readonly items = new Map<string, Item>();
  /** Called before every command; throw from it to inject a failure. */
  intercept: Intercept = () => {};

  constructor(items: readonly Item[] = []) {
    for (const item of items) this.put(item);
  }

  put(item: Item): void {
    this.items.set(keyOf(item), clone(item));
  }

  get(key: Item): Item | undefined {
    const item = this.items.get(keyOf(key));
    return item ? clone(item) : undefined;
  }

  delete(key: Item): void {
    this.items.delete(keyOf(key));
  }

  /** The items of a partition, by sort key. */
  partition(pk: string): Item[] {
    return [...this.items.values()]
      .filter((item) => item.pk === pk)
      .sort((a, b) => compare(a.sk, b.sk))
      .map(clone);
  }

  /** Every item whose partition key starts with `prefix`. */
  withPrefix(prefix: string): Item[] {
    return [...this.items.values()].filter((item) => String(item.pk).startsWith(prefix)).map(clone);
  }

  query(input: QueryInput): { Items: Item[]; Count: number; ScannedCount: number; LastEvaluatedKey?: Item } {
    const names = input.ExpressionAttributeNames;
    const values = input.ExpressionAttributeValues ?? {};
    const index = input.IndexName === undefined ? undefined : GLOBAL_SECONDARY_INDEXES.find((candidate) => candidate.indexName === input.IndexName);
    if (input.IndexName !== undefined && !index) throw validation(`no index ${input.IndexName}`);
    if (index && input.ConsistentRead) throw validation('Consistent reads are not supported on global secondary indexes');
    const hashKey = index?.partitionKey ?? 'pk';
    const rangeKey = index?.sortKey ?? 'sk';
    const name = (token: string) => (token.startsWith('#') ? names?.[token] : token);
    const match = /^([#\w]+) = (:\w+)(?: AND (?:([#\w]+) BETWEEN (:\w+) AND (:\w+)|([#\w]+) (>=|<=|<|>|=) (:\w+)|begins_with\(([#\w]+), (:\w+)\)))?$/.exec(
      input.KeyConditionExpression,
    );
    if (!match) throw new Error(`fake-table: unsupported key condition "${input.KeyConditionExpression}"`);
    if (name(match[1]!) !== hashKey) throw validation(`${match[1]} is not the partition key`);
    const rangeName = match[3] ?? match[6] ?? match[9];
    if (rangeName !== undefined && name(rangeName) !== rangeKey) throw validation(`${rangeName} is not the sort key`);
    const partition = values[match[2]!];
    const inRange = (sort: unknown): boolean => {
      if (match[3]) {
        const from = values[match[4]!];
        const to = values[match[5]!];
        if (compare(from, to) > 0) throw validation('BETWEEN bounds are in the wrong order');
        return compare(sort, from) >= 0 && compare(sort, to) <= 0;
      }
      if (match[6]) {
        const order = compare(sort, values[match[8]!]);
        return { '>=': order >= 0, '<=': order <= 0, '<': order < 0, '>': order > 0, '=': order === 0 }[match[7] as '='];
      }
      if (match[9]) return String(sort).startsWith(String(values[match[10]!]));
      return true;
    };
    let candidates = [...this.items.values()]
      .filter((item) => item[hashKey] === partition && item[rangeKey] !== undefined && inRange(item[rangeKey]))
      .sort((a, b) => compare(a[rangeKey], b[rangeKey]) || compare(keyOf(a), keyOf(b)));
    if (input.ScanIndexForward === false) candidates.reverse();
    if (input.ExclusiveStartKey) {
      const start = keyOf(input.ExclusiveStartKey);
      const position = candidates.findIndex((item) => keyOf(item) === start);
      candidates = candidates.slice(position + 1);
    }
    const evaluated = input.Limit === undefined ? candidates : candidates.slice(0, input.Limit);
    const more = evaluated.length < candidates.length;
    let found = evaluated;
    if (input.FilterExpression !== undefined) {
      if (input.FilterExpression !== 'g >= :gte') throw new Error(`fake-table: unsupported filter "${input.FilterExpression}"`);
      found = evaluated.filter((item) => typeof item.g === 'number' && item.g >= Number(values[':gte']));
    }
    const last = evaluated.at(-1);
    return {
      Items: found.map(clone),
      Count: found.length,
      ScannedCount: evaluated.length,
      ...(more && last ? { LastEvaluatedKey: { pk: last.pk, sk: last.sk, ...(index ? { [hashKey]: last[hashKey], [rangeKey]: last[rangeKey] } : {}) } } : {}),
    };
  }

  /** Answers every command the data layer sends through `ddb`. */
  serve(stub: AwsStub<ServiceInputTypes, ServiceOutputTypes, DynamoDBDocumentClientResolvedConfig>): this {
    stub.on(GetCommand).callsFake((input: { Key: Item }) => {
      this.intercept('Get', input);
      const item = this.get(input.Key);
      return item ? { Item: item } : {};
    });
    stub.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: Item[] }> }) => {
      this.intercept('BatchGet', input);
      const keys = input.RequestItems[TABLE]?.Keys ?? [];
      if (new Set(keys.map(keyOf)).size !== keys.length) throw validation('Provided list of item keys contains duplicates');
      return { Responses: { [TABLE]: keys.flatMap((key) => this.get(key) ?? []) } };
    });
    stub.on(QueryCommand).callsFake((input: QueryInput) => {
      this.intercept('Query', input as unknown as Record<string, unknown>);
      return this.query(input);
    });
    stub
      .on(PutCommand)
      .callsFake((input: { Item: Item; ConditionExpression?: string; ExpressionAttributeNames?: Names; ExpressionAttributeValues?: Values }) => {
        this.intercept('Put', input);
        this.check(input.Item, input.ConditionExpression, input.ExpressionAttributeNames, input.ExpressionAttributeValues, 'single');
        this.put(input.Item);
        return {};
      });
    stub
      .on(DeleteCommand)
      .callsFake((input: { Key: Item; ConditionExpression?: string; ExpressionAttributeNames?: Names; ExpressionAttributeValues?: Values }) => {
        this.intercept('Delete', input);
        this.check(input.Key, input.ConditionExpression, input.ExpressionAttributeNames, input.ExpressionAttributeValues, 'single');
        this.delete(input.Key);
        return {};
      });
    stub
      .on(UpdateCommand)
      .callsFake(
        (input: {
          Key: Item;
          UpdateExpression: string;
          ConditionExpression?: string;
          ExpressionAttributeNames?: Names;
          ExpressionAttributeValues?: Values;
        }) => {
          this.intercept('Update', input);
          this.check(input.Key, input.ConditionExpression, input.ExpressionAttributeNames, input.ExpressionAttributeValues, 'single');
          const updated = applyUpdate(this.get(input.Key), input.Key, input.UpdateExpression, input.ExpressionAttributeNames, input.ExpressionAttributeValues);
          this.put(updated);
          return { Attributes: clone(updated) };
        },
      );
    stub.on(BatchWriteCommand).callsFake((input: { RequestItems: Record<string, { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]> }) => {
      this.intercept('BatchWrite', input);
      const requests = input.RequestItems[TABLE] ?? [];
      if (requests.length > 25) throw validation('Too many items requested for the BatchWriteItem call');
      const keys = requests.map((request) => keyOf(request.PutRequest?.Item ?? request.DeleteRequest!.Key));
      if (new Set(keys).size !== keys.length) throw validation('Provided list of item keys contains duplicates');
      for (const request of requests) {
        if (request.PutRequest) this.put(request.PutRequest.Item);
        else this.delete(request.DeleteRequest!.Key);
      }
      return { UnprocessedItems: {} };
    });
    stub.on(TransactWriteCommand).callsFake((input: { TransactItems: Record<string, Record<string, unknown>>[] }) => {
      this.intercept('TransactWrite', input);
      this.transact(input.TransactItems);
      return {};
    });
    return this;
  }

  private check(key: Item, condition: string | undefined, names: Names, values: Values, mode: 'single'): void;
  private check(key: Item, condition: string | undefined, names: Names, values: Values, mode: 'transaction'): boolean;
  private check(key: Item, condition: string | undefined, names: Names, values: Values, mode: 'single' | 'transaction'): boolean {
    if (condition === undefined) return true;
    const holds = evaluateCondition(condition, this.get(key), names, values);
    if (!holds && mode === 'single') throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
    return holds;
  }

  private transact(actions: readonly Record<string, Record<string, unknown>>[]): void {
    if (actions.length > 100) throw validation('Member must have length less than or equal to 100');
    const keys = actions.map((action) => {
      const body = Object.values(action)[0]!;
      return keyOf((body.Key ?? body.Item) as Item);
    });
    if (new Set(keys).size !== keys.length) throw validation('Transaction request cannot include multiple operations on one item');
    const reasons = actions.map((action): CancellationReason => {
      const body = Object.values(action)[0]!;
      const key = (body.Key ?? body.Item) as Item;
      const holds = this.check(
        { pk: key.pk, sk: key.sk },
        body.ConditionExpression as string | undefined,
        body.ExpressionAttributeNames as Names,
        body.ExpressionAttributeValues as Values,
        'transaction',
      );
      if (holds) return { Code: 'None' };
      const old = this.get(key);
      return {
        Code: 'ConditionalCheckFailed',
        ...(body.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && old ? { Item: marshall(old) } : {}),
      };
    });
    if (reasons.some((reason) => reason.Code !== 'None')) {
      throw new TransactionCanceledException({
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
        $metadata: {},
        CancellationReasons: reasons,
      });
    }
    for (const action of actions) {
      const [kind, body] = Object.entries(action)[0]!;
      if (kind === 'Put') this.put(body.Item as Item);
      else if (kind === 'Delete') this.delete(body.Key as Item);
      else if (kind === 'Update') {
        const key = body.Key as Item;
        this.put(
          applyUpdate(this.get(key), key, body.UpdateExpression as string, body.ExpressionAttributeNames as Names, body.ExpressionAttributeValues as Values),
        );
      } else if (kind !== 'ConditionCheck') throw new Error(`fake-table: unsupported transaction action ${kind}`);
    }
  }
}
