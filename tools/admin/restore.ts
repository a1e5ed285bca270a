import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { parseArgs } from 'node:util';
import { getClient } from '../../lambdas/data/clients/clients.js';
import { batchWrite } from '../../lambdas/data/table/batch.js';
import { documentClient, tableName } from '../../lambdas/data/table/dynamo.js';
import { tenantPrefix } from '../../lambdas/data/table/keys.js';
import { UsageError } from './usage-error.js';

/**
 * `npm run cli -- --stage <name> restore copy --from <table> [--client <username>]`: the last step
 * of a point-in-time restore (docs/operations.md, "Point-in-time restore"). DynamoDB restores
 * only into a new table; this copies the restored table's items (every one, or one tenant's)
 * back into the stage's table, overwriting the items they match and leaving items written since
 * the restore point alone. The copy is written like any write, so the stream carries every item
 * it changed to the list maintainer and the repricing evaluator: pushes are stopped first, and
 * `rebuild` after. It reads the restored table with a Scan (a one-off on a side table, never the
 * stage's), shows the count, and writes only once the operator types `copy` or gives `--yes`.
 */
export interface RestoreCliContext {
  readonly where: string;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly confirm: (prompt: string, expected: string) => Promise<boolean>;
}

export const COPY_CONFIRMATION = 'copy';

/** Every item of `table` (or those whose partition key starts with `prefix`), page by page. */
const scanItems = async (table: string, prefix: string | undefined): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({
        TableName: table,
        ...(prefix === undefined ? {} : { FilterExpression: 'begins_with(pk, :prefix)', ExpressionAttributeValues: { ':prefix': prefix } }),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...((page.Items ?? []) as Record<string, unknown>[]));
    start = page.LastEvaluatedKey as Record<string, unknown> | undefined;
  } while (start);
  return items;
};

const copy = async (args: string[], context: RestoreCliContext): Promise<void> => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { from: { type: 'string' }, client: { type: 'string' }, yes: { type: 'boolean', default: false }, 'dry-run': { type: 'boolean', default: false } },
  });
  const from = values.from?.trim();
  if (positionals.length > 0 || !from) throw new UsageError('restore copy needs --from <restored table> (and optionally --client <username>)');
  const into = tableName();
  if (from === into) throw new UsageError(`--from names the stage's own table ${into}: name the restored one`);
  let prefix: string | undefined;
  if (values.client !== undefined) {
    // The client as the stage knows it now; a client deleted since is copied back whole (no --client) or re-created first.
    const client = await getClient(values.client);
    if (!client) throw new Error(`No client named "${values.client}" on ${context.where}: create it again first, or copy every item`);
    prefix = tenantPrefix(client.clientId);
  }
  const items = await scanItems(from, prefix);
  const what = values.client === undefined ? 'every item' : `client ${values.client}'s items`;
  context.out(`${from}: ${items.length} items (${what}) to copy into ${into} on ${context.where}\n`);
  if (items.length === 0 || values['dry-run']) {
    context.out(items.length === 0 ? 'Nothing to copy.\n' : 'Dry run: nothing written.\n');
    return;
  }
  if (!values.yes && !(await context.confirm(`They overwrite the items with the same keys. Type "${COPY_CONFIRMATION}" to confirm: `, COPY_CONFIRMATION))) {
    context.out('Not confirmed: nothing written.\n');
    return;
  }
  await batchWrite(items.map((item) => ({ put: item })));
  context.out(`Copied ${items.length} items into ${into}. Next: rebuild, check, then resume pushes (docs/operations.md).\n`);
};

export const runRestoreCommand = async (subcommand: string | undefined, args: string[], context: RestoreCliContext): Promise<void> => {
  if (subcommand !== 'copy') throw new UsageError(subcommand ? `Unknown command: restore ${subcommand}` : 'restore needs a command');
  await copy(args, context);
};
