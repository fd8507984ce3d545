/**
 * CONTRACT §6/§9: `GET|POST /user-service/notification-settings`.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import {
  DEFAULT_SETTINGS,
  FORMATS,
  XML_DECLARATION,
  bearer,
  expectBody,
  invalidField,
  unauthorized,
  unknownKey,
  withFormat,
  usePlatform,
  type Reply,
} from './support';

const { platform, send } = usePlatform();

// §6: the document also says where the e-mails go (the account's own address until set) and the
// webhook (none). Each key's account e-mail, for the documents expected of it.
const emails = new Map<string, string>();
async function freshKey(): Promise<string> {
  const account = await platform.account({ 1: 50 });
  emails.set(account.apiKey, account.email);
  return account.apiKey;
}
const documentOf = (apiKey: string, alerts: object = DEFAULT_SETTINGS) => ({ ...alerts, email: emails.get(apiKey), webhook: null });
const xmlTail = (apiKey: string) => `<email>${emails.get(apiKey) ?? ''}</email><webhook/>`;

describe('§6/§9 notification settings', () => {
  const PATH = '/user-service/notification-settings';
  const read = (apiKey: string, query: Record<string, string> = {}): Promise<Reply> => send('user', PATH, { query: { apiKey, ...query } });
  const change = (apiKey: string, json: unknown, query: Record<string, string> = {}): Promise<Reply> =>
    send('user', PATH, { query: { apiKey, ...query }, json });
  const THRESHOLD_INVALID = invalidField('lowBalanceAlert.threshold', 'low balance alert.threshold');

  it.each(FORMATS)('when read for a new account, then the real defaults, exactly, in %s', async (format) => {
    const apiKey = await freshKey();
    expectBody(await read(apiKey, withFormat(format)), 200, documentOf(apiKey), format);
  });

  it('when the XML document is read, then booleans are true/false', async () => {
    const apiKey = await freshKey();
    expect((await read(apiKey, { outputFormat: 'XML' })).text).toBe(
      `${XML_DECLARATION}<xml><lowBalanceAlert><enabled>true</enabled><threshold>10</threshold></lowBalanceAlert><zeroBalanceAlert><enabled>true</enabled></zeroBalanceAlert>${xmlTail(apiKey)}</xml>`,
    );
  });

  it('when nested subsets are posted one after another, then each answers the whole document and keeps the fields it does not name', async () => {
    const apiKey = await freshKey();
    expectBody(
      await change(apiKey, { lowBalanceAlert: { threshold: 25 } }),
      200,
      documentOf(apiKey, { lowBalanceAlert: { enabled: true, threshold: 25 }, zeroBalanceAlert: { enabled: true } }),
    );
    expectBody(
      await change(apiKey, { zeroBalanceAlert: { enabled: false } }),
      200,
      documentOf(apiKey, { lowBalanceAlert: { enabled: true, threshold: 25 }, zeroBalanceAlert: { enabled: false } }),
    );
    const expected = documentOf(apiKey, { lowBalanceAlert: { enabled: false, threshold: 25 }, zeroBalanceAlert: { enabled: false } });
    expectBody(await change(apiKey, { lowBalanceAlert: { enabled: false } }, { outputFormat: 'XML' }), 200, expected, 'XML');
    expectBody(await read(apiKey), 200, expected);
    expect((await read(apiKey, { outputFormat: 'xml' })).text).toBe(
      `${XML_DECLARATION}<xml><lowBalanceAlert><enabled>false</enabled><threshold>25</threshold></lowBalanceAlert><zeroBalanceAlert><enabled>false</enabled></zeroBalanceAlert>${xmlTail(apiKey)}</xml>`,
    );
  });

  it('when one account changes its settings, then another account keeps the defaults', async () => {
    const [mine, other] = [await freshKey(), await freshKey()];
    expect((await change(mine, { lowBalanceAlert: { threshold: 99, enabled: false }, zeroBalanceAlert: { enabled: false } })).status).toBe(
      200,
    );
    expectBody(await read(other), 200, documentOf(other));
  });

  it.each<[string, unknown]>([
    ['an empty document', {}],
    ['a JSON null section', { lowBalanceAlert: null }],
    [
      'lowBalanceAlert.enabled: null (§9: a JSON null counts as not given; only threshold: null is 422)',
      { lowBalanceAlert: { enabled: null } },
    ],
    ['zeroBalanceAlert.enabled: null (§9: a JSON null counts as not given)', { zeroBalanceAlert: { enabled: null } }],
  ])('when %s is posted, then 200 with the document unchanged', async (_case, json) => {
    const apiKey = await freshKey();
    expectBody(await change(apiKey, json), 200, documentOf(apiKey));
  });

  it.each<[unknown, number]>([
    [0, 0],
    [1_000_000_000, 1_000_000_000],
    ['25', 25],
  ])('when threshold is %p, then it is accepted as %p', async (threshold, stored) => {
    const apiKey = await freshKey();
    expectBody(
      await change(apiKey, { lowBalanceAlert: { threshold } }),
      200,
      documentOf(apiKey, { lowBalanceAlert: { enabled: true, threshold: stored }, zeroBalanceAlert: { enabled: true } }),
    );
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['-1', -1],
    ['1000000001', 1_000_000_001],
    ['1.5', 1.5],
    ['"abc"', 'abc'],
    ['"-5"', '-5'],
    ['true', true],
    ['an array', [10]],
    ['an object', { value: 10 }],
  ])('when threshold is %s, then 422 with the dotted field name, in JSON and XML, and nothing changes', async (_case, threshold) => {
    const apiKey = await freshKey();
    expectBody(await change(apiKey, { lowBalanceAlert: { threshold } }), 422, THRESHOLD_INVALID);
    expectBody(await change(apiKey, { lowBalanceAlert: { threshold } }, { outputFormat: 'XML' }), 422, THRESHOLD_INVALID, 'XML');
    expectBody(await read(apiKey), 200, documentOf(apiKey));
  });

  it('when threshold is null, then the XML 422 names the dotted element exactly', async () => {
    expect((await change(await freshKey(), { lowBalanceAlert: { threshold: null } }, { outputFormat: 'XML' })).text).toBe(
      `${XML_DECLARATION}<xml><code>422</code><messages><lowBalanceAlert.threshold><item>The selected low balance alert.threshold is invalid.</item></lowBalanceAlert.threshold></messages></xml>`,
    );
  });

  it.each<[string, unknown, string, string]>([
    ['lowBalanceAlert.enabled is "yes"', { lowBalanceAlert: { enabled: 'yes' } }, 'lowBalanceAlert.enabled', 'low balance alert.enabled'],
    ['zeroBalanceAlert.enabled is 1', { zeroBalanceAlert: { enabled: 1 } }, 'zeroBalanceAlert.enabled', 'zero balance alert.enabled'],
    ['lowBalanceAlert is a number', { lowBalanceAlert: 5 }, 'lowBalanceAlert', 'low balance alert'],
    ['zeroBalanceAlert is a string', { zeroBalanceAlert: 'off' }, 'zeroBalanceAlert', 'zero balance alert'],
  ])('when %s, then 422 with that (dotted) field', async (_case, json, field, words) => {
    expectBody(await change(await freshKey(), json), 422, invalidField(field, words));
  });

  it('when two fields are bad, then both are reported together', async () => {
    const reply = await change(await freshKey(), { lowBalanceAlert: { threshold: -1 }, zeroBalanceAlert: { enabled: 'no' } });
    expect({ status: reply.status, body: reply.json() }).toEqual({
      status: 422,
      body: {
        code: 422,
        messages: {
          'lowBalanceAlert.threshold': ['The selected low balance alert.threshold is invalid.'],
          'zeroBalanceAlert.enabled': ['The selected zero balance alert.enabled is invalid.'],
        },
      },
    });
  });

  it.each<[string, 'GET' | 'POST', Record<string, string>]>([
    ['GET without a credential', 'GET', {}],
    ['GET with an unknown key', 'GET', { apiKey: unknownKey() }],
    ['POST with an unknown key', 'POST', { apiKey: unknownKey() }],
  ])('when %s, then 401 in JSON and XML', async (_case, method, query) => {
    for (const format of FORMATS) {
      const reply = await send('user', PATH, {
        method,
        query: { ...query, ...withFormat(format) },
        ...(method === 'POST' ? { json: { lowBalanceAlert: { threshold: 5 } } } : {}),
      });
      expectBody(reply, 401, unauthorized, format);
    }
  });

  it('when apiKey arrives in the JSON body beside the document, then it is the credential and the change is made', async () => {
    const apiKey = await freshKey();
    expectBody(
      await send('user', PATH, { json: { apiKey, zeroBalanceAlert: { enabled: false } } }),
      200,
      documentOf(apiKey, { lowBalanceAlert: { enabled: true, threshold: 10 }, zeroBalanceAlert: { enabled: false } }),
    );
  });

  it('when a token is used, then it reads and changes its account’s settings', async () => {
    const apiKey = await freshKey();
    const token = await platform.token(apiKey);
    expect((await send('user', PATH, { headers: bearer(token), json: { lowBalanceAlert: { threshold: 42 } } })).status).toBe(200);
    expectBody(
      await read(apiKey),
      200,
      documentOf(apiKey, { lowBalanceAlert: { enabled: true, threshold: 42 }, zeroBalanceAlert: { enabled: true } }),
    );
  });
});
