import { jest } from '@jest/globals';

/**
 * Integration tests wait for DynamoDB Local, and an import also for the list maintenance it
 * starts (api.importRecords settles the stream): on a busy machine a test takes longer than
 * jest's default 5 s. Tests that need more still say so.
 */
jest.setTimeout(60_000);
