/**
 * A takealot connection saved as `PUT /v1/connections/takealot` stores it (suggest mode, the seller
 * id the client stated, the key sealed), without asking a marketplace to check the key: for tests
 * that play the syncs and the sender themselves. Imported late, like the tests' own data modules,
 * so the table's environment is set before the data layer loads.
 */
export const saveSuggestConnection = async (clientId: string, apiKey: string): Promise<void> => {
  const { connectedRecord } = await import('../../lambdas/domain/connections.js');
  const { saveConnection } = await import('../../lambdas/data/connections/connections.js');
  const { sealConnectionSecret } = await import('../../lambdas/marketplace/secrets.js');
  const record = connectedRecord('takealot', { apiKey, webhookSecretSet: false, mode: 'suggest', sellerId: 'me' }, undefined, new Date().toISOString());
  const sealedKey = await sealConnectionSecret('marketplace-key', clientId, 'takealot', apiKey);
  await saveConnection(clientId, record, { sealedKey }, undefined);
};
