import { LOCAL_SECRETS_KEY_ENV } from '../../lambdas/crypto/key-provider.js';

/**
 * The wrapping key of the local key provider, for `npm start` and the tests: fixed, so the
 * webhooks of one local run still open in the next over a kept table. It protects nothing but
 * local test data and is never given to the stack; LOCAL_SECRETS_KEY set beforehand wins.
 */
export const LOCAL_DEVELOPMENT_SECRETS_KEY = '6c6f63616c2d6f6e6c792d72657072696365722d736563726574732d6b657921';

export const useLocalSecretsKey = (env: NodeJS.ProcessEnv = process.env): void => {
  env[LOCAL_SECRETS_KEY_ENV] ||= LOCAL_DEVELOPMENT_SECRETS_KEY;
};
