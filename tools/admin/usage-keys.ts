import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  UpdateApiKeyCommand,
  type ApiKey,
} from '@aws-sdk/client-api-gateway';

/**
 * A client's API key in a deployed stage: the key whose value is the client item's `usageKey`,
 * a member of the stage's usage plan (docs/security.md, "Usage plan"). API keys are per account
 * and region, not per API, so a key is found by its value, never by its name alone.
 */
export interface UsageKeyTarget {
  readonly stage: string;
  readonly usagePlanId: string;
}

export interface UsageKeyState {
  readonly id: string;
  readonly enabled: boolean;
}

/** What an API key of a client is named: stage and user name, for the console and audits. */
export const usageKeyName = (stage: string, username: string): string => `repricer-${stage}-${username}`;

const isConflict = (error: unknown): boolean => error instanceof Error && error.name === 'ConflictException';

export class UsageKeys {
  constructor(
    private readonly target: UsageKeyTarget,
    private readonly apiGateway: APIGatewayClient = new APIGatewayClient({}),
  ) {}

  /** The key with this value among the keys named for the client, if any. */
  async find(username: string, value: string): Promise<UsageKeyState | undefined> {
    let position: string | undefined;
    do {
      const page = await this.apiGateway.send(
        new GetApiKeysCommand({
          nameQuery: usageKeyName(this.target.stage, username),
          includeValues: true,
          limit: 500,
          ...(position ? { position } : {}),
        }),
      );
      const key = (page.items ?? []).find((item: ApiKey) => item.value === value);
      if (key?.id) return { id: key.id, enabled: key.enabled ?? false };
      position = page.position;
    } while (position);
    return undefined;
  }

  /**
   * Creates the key with the client's value, unless it exists, enables it, and makes it a member
   * of the usage plan: running it again repairs a registration a failure left half done.
   */
  async register(username: string, value: string): Promise<UsageKeyState> {
    const existing = await this.find(username, value);
    let id: string;
    if (existing) {
      id = existing.id;
      if (!existing.enabled) await this.setEnabled(id, true);
    } else {
      const created = await this.apiGateway.send(
        new CreateApiKeyCommand({
          name: usageKeyName(this.target.stage, username),
          value,
          enabled: true,
          description: `Repricer API client ${username}, stage ${this.target.stage}`,
        }),
      );
      if (!created.id) throw new Error('API Gateway created an API key without an id');
      id = created.id;
    }
    try {
      await this.apiGateway.send(new CreateUsagePlanKeyCommand({ usagePlanId: this.target.usagePlanId, keyId: id, keyType: 'API_KEY' }));
    } catch (error) {
      // Already a member of the plan.
      if (!isConflict(error)) throw error;
    }
    return { id, enabled: true };
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    await this.apiGateway.send(
      new UpdateApiKeyCommand({
        apiKey: id,
        patchOperations: [{ op: 'replace', path: '/enabled', value: String(enabled) }],
      }),
    );
  }

  /** Deleting the key also removes it from the usage plan. `false` when there was none. */
  async remove(username: string, value: string): Promise<boolean> {
    const existing = await this.find(username, value);
    if (!existing) return false;
    await this.apiGateway.send(new DeleteApiKeyCommand({ apiKey: existing.id }));
    return true;
  }
}
