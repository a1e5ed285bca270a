import { jest } from '@jest/globals';
import {
  basicAuthorization,
  MAX_AUTHORIZATION_HEADER_LENGTH,
  MAX_PASSWORD_LENGTH,
  MAX_USERNAME_LENGTH,
  parseBasicAuthorization,
} from '../../../lambdas/auth/basic-credentials.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('parseBasicAuthorization', () => {
  it.each([
    ['a good header', `Basic ${b64('alice:s3cret')}`, { username: 'alice', password: 's3cret' }],
    ['a lower-case scheme', `basic ${b64('alice:s3cret')}`, { username: 'alice', password: 's3cret' }],
    ['an upper-case scheme', `BASIC ${b64('alice:s3cret')}`, { username: 'alice', password: 's3cret' }],
    ['surrounding whitespace', `  Basic  ${b64('alice:s3cret')} `, { username: 'alice', password: 's3cret' }],
    ['a unicode password', `Basic ${b64('alice:pässwörd✓😀')}`, { username: 'alice', password: 'pässwörd✓😀' }],
    ['a colon inside the password', `Basic ${b64('alice:a:b:c')}`, { username: 'alice', password: 'a:b:c' }],
    [
      'the longest allowed parts',
      `Basic ${b64(`${'u'.repeat(MAX_USERNAME_LENGTH)}:${'p'.repeat(MAX_PASSWORD_LENGTH)}`)}`,
      { username: 'u'.repeat(MAX_USERNAME_LENGTH), password: 'p'.repeat(MAX_PASSWORD_LENGTH) },
    ],
  ])('accepts %s', (_case, header, expected) => {
    // Act
    const credentials = parseBasicAuthorization(header);

    // Assess
    expect(credentials).toEqual(expected);
  });

  it.each([
    ['a missing header', undefined],
    ['a null header', null],
    ['an empty header', ''],
    ['another scheme', `Bearer ${b64('alice:s3cret')}`],
    ['a scheme without credentials', 'Basic'],
    ['a scheme glued to the token', `Basic${b64('alice:s3cret')}`],
    ['two tokens', `Basic ${b64('alice:s3cret')} ${b64('x:y')}`],
    ['characters outside base64', 'Basic YWxpY2U6c2VjcmV0!'],
    ['the URL-safe alphabet', `Basic ${Buffer.from('??>:~~', 'utf8').toString('base64url')}`],
    ['missing padding', `Basic ${b64('alice:s3cre').replace(/=+$/, '')}`],
    ['extra padding', `Basic ${b64('alice:s3cret')}==`],
    // 'YWxpY2U6czNjcmU=' with the unused low bits of its last character set
    ['non-zero padding bits', 'Basic YWxpY2U6czNjcmV='],
    ['invalid UTF-8', `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}`],
    ['no colon', `Basic ${b64('alice')}`],
    ['an empty username', `Basic ${b64(':s3cret')}`],
    ['an empty password', `Basic ${b64('alice:')}`],
    ['a control character', `Basic ${b64('alice:s3\ncret')}`],
    ['a username over the limit', `Basic ${b64(`${'u'.repeat(MAX_USERNAME_LENGTH + 1)}:s3cret`)}`],
    ['a password over the limit', `Basic ${b64(`alice:${'p'.repeat(MAX_PASSWORD_LENGTH + 1)}`)}`],
    ['an over-long header', `Basic ${b64(`alice:${'p'.repeat(MAX_AUTHORIZATION_HEADER_LENGTH)}`)}`],
  ])('rejects %s', (_case, header) => {
    // Act
    const credentials = parseBasicAuthorization(header);

    // Assess
    expect(credentials).toBeUndefined();
  });

  it('checks the header length before decoding it', () => {
    // Prepare
    const decode = jest.spyOn(Buffer, 'from');
    const header = `Basic ${'A'.repeat(MAX_AUTHORIZATION_HEADER_LENGTH)}`;

    // Act
    const credentials = parseBasicAuthorization(header);

    // Assess
    expect(credentials).toBeUndefined();
    expect(decode).not.toHaveBeenCalled();
    decode.mockRestore();
  });

  it('reads back what basicAuthorization builds', () => {
    // Act
    const credentials = parseBasicAuthorization(basicAuthorization('bob@example.com', 'pä:ss'));

    // Assess
    expect(credentials).toEqual({ username: 'bob@example.com', password: 'pä:ss' });
  });
});
