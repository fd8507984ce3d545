import { ACCESS_RESTRICTED, JSON_TYPE, useHarness, XML_DECLARATION, XML_TYPE } from './harness';

const PATH = '/user-service/notification-settings';
const DEFAULTS = { lowBalanceAlert: { enabled: true, threshold: 10 }, zeroBalanceAlert: { enabled: true } };
/** The whole document: the alert settings, where e-mails go (the account's own address by default) and no webhook. */
const doc = (account: { email: string }, alerts: object = DEFAULTS) => ({ ...alerts, email: account.email, webhook: null });
const invalid = (field: string, words: string) => ({ code: 422, messages: { [field]: [`The selected ${words} is invalid.`] } });

const h = useHarness();

describe('GET /user-service/notification-settings', () => {
  it('when the account never changed its settings, then the real defaults (JSON)', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.get(PATH).query({ apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.text).toBe(
      `{"lowBalanceAlert":{"enabled":true,"threshold":10},"zeroBalanceAlert":{"enabled":true},"email":"${account.email}","webhook":null}`,
    );
  });

  it('when outputFormat is XML, then booleans render as true/false', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.get(PATH).query({ apiKey: account.apiKey, outputFormat: 'XML' });
    expect(res.headers['content-type']).toBe(XML_TYPE);
    expect(res.text).toBe(
      `${XML_DECLARATION}<xml><lowBalanceAlert><enabled>true</enabled><threshold>10</threshold></lowBalanceAlert><zeroBalanceAlert><enabled>true</enabled></zeroBalanceAlert><email>${account.email}</email><webhook/></xml>`,
    );
  });

  it('when a token is presented in apiKey or as Bearer, then the settings are read', async () => {
    const account = await h.account({ 1: 10 });
    const token = await h.token(account);
    expect((await h.http.get(PATH).query({ apiKey: token })).body).toEqual(doc(account));
    expect((await h.http.get(PATH).set('Authorization', `Bearer ${token}`)).body).toEqual(doc(account));
  });

  it('when the credential is missing or wrong, then 401 (JSON, XML, WWW-Authenticate on Bearer)', async () => {
    const json = await h.http.get(PATH);
    expect(json.status).toBe(401);
    expect(json.body).toEqual({ code: 401, messages: ACCESS_RESTRICTED });
    const xml = await h.http
      .post(PATH)
      .query({ outputFormat: 'XML', apiKey: 'at_wrong' })
      .send({ lowBalanceAlert: { threshold: 5 } });
    expect(xml.status).toBe(401);
    expect(xml.text).toBe(`${XML_DECLARATION}<xml><code>401</code><messages>${ACCESS_RESTRICTED}</messages></xml>`);
    const bearer = await h.http.get(PATH).set('Authorization', 'Bearer tk_nope');
    expect(bearer.status).toBe(401);
    expect(bearer.headers['www-authenticate']).toBe('Bearer realm="user", error="invalid_token", error_description="invalid_credential"');
  });

  it('when the credential is wrong and the body invalid, then 401 comes before 422', async () => {
    const res = await h.http.post(PATH).send({ apiKey: 'at_wrong', lowBalanceAlert: { threshold: null } });
    expect(res.status).toBe(401);
  });

  it('when outputFormat is invalid, then 422', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.get(PATH).query({ apiKey: account.apiKey, outputFormat: 'CSV' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, messages: { outputFormat: ['The selected output format is invalid.'] } });
  });
});

describe('POST /user-service/notification-settings', () => {
  it('when a nested subset is posted, then the whole document comes back and the unnamed fields are kept', async () => {
    const account = await h.account({ 1: 10 });
    const first = await h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: { threshold: 25 } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual(doc(account, { lowBalanceAlert: { enabled: true, threshold: 25 }, zeroBalanceAlert: { enabled: true } }));
    const second = await h.http.post(PATH).send({ apiKey: account.apiKey, zeroBalanceAlert: { enabled: false } });
    expect(second.body).toEqual(doc(account, { lowBalanceAlert: { enabled: true, threshold: 25 }, zeroBalanceAlert: { enabled: false } }));
    const third = await h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: { enabled: false } });
    expect(third.body).toEqual(doc(account, { lowBalanceAlert: { enabled: false, threshold: 25 }, zeroBalanceAlert: { enabled: false } }));
    const read = await h.http.get(PATH).query({ apiKey: account.apiKey });
    expect(read.body).toEqual(third.body);
  });

  it('when the change is posted with XML output, then the document in XML with false rendered', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http
      .post(PATH)
      .query({ outputFormat: 'XML' })
      .send({ apiKey: account.apiKey, zeroBalanceAlert: { enabled: false } });
    expect(res.text).toBe(
      `${XML_DECLARATION}<xml><lowBalanceAlert><enabled>true</enabled><threshold>10</threshold></lowBalanceAlert><zeroBalanceAlert><enabled>false</enabled></zeroBalanceAlert><email>${account.email}</email><webhook/></xml>`,
    );
  });

  it('when the token is sent as Bearer with a JSON body, then the change applies', async () => {
    const account = await h.account({ 1: 10 });
    const token = await h.token(account);
    const res = await h.http
      .post(PATH)
      .set('Authorization', `Bearer ${token}`)
      .send({ lowBalanceAlert: { threshold: '30' } });
    expect(res.status).toBe(200);
    expect(res.body.lowBalanceAlert).toEqual({ enabled: true, threshold: 30 });
  });

  it('when nothing is named, then the document is answered unchanged', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.post(PATH).send({ apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(doc(account));
  });

  it('when settings change for one account, then another account keeps its own', async () => {
    const one = await h.account({ 1: 10 });
    const other = await h.account({ 1: 10 });
    await h.http.post(PATH).send({ apiKey: one.apiKey, lowBalanceAlert: { threshold: 99 } });
    expect((await h.http.get(PATH).query({ apiKey: other.apiKey })).body).toEqual(doc(other));
  });

  it.each([0, 1_000_000_000, '0', '1000000000'])('when threshold is %p (a bound), then it is accepted', async (threshold) => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: { threshold } });
    expect(res.status).toBe(200);
    expect(res.body.lowBalanceAlert.threshold).toBe(Number(threshold));
  });

  it('when threshold is null, then 422 with the dotted field name (JSON and XML)', async () => {
    const account = await h.account({ 1: 10 });
    const json = await h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: { threshold: null } });
    expect(json.status).toBe(422);
    expect(json.text).toBe(
      '{"code":422,"messages":{"lowBalanceAlert.threshold":["The selected low balance alert.threshold is invalid."]}}',
    );
    const xml = await h.http.post(PATH).send({ apiKey: account.apiKey, outputFormat: 'XML', lowBalanceAlert: { threshold: null } });
    expect(xml.status).toBe(422);
    expect(xml.text).toBe(
      `${XML_DECLARATION}<xml><code>422</code><messages><lowBalanceAlert.threshold><item>The selected low balance alert.threshold is invalid.</item></lowBalanceAlert.threshold></messages></xml>`,
    );
  });

  it.each([-1, 1.5, 1_000_000_001, '1e3', '-5', 'ten', '', true, [10], { value: 10 }, '99999999999999999999999'])(
    'when threshold is %p, then 422 and nothing is stored',
    async (threshold) => {
      const account = await h.account({ 1: 10 });
      const res = await h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: { threshold, enabled: false } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(invalid('lowBalanceAlert.threshold', 'low balance alert.threshold'));
      expect((await h.http.get(PATH).query({ apiKey: account.apiKey })).body).toEqual(doc(account));
    },
  );

  it.each(['true', 1, {}, []])('when an enabled flag is %p (not a boolean), then 422 for each flag', async (enabled) => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: { enabled }, zeroBalanceAlert: { enabled } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      code: 422,
      messages: {
        'lowBalanceAlert.enabled': ['The selected low balance alert.enabled is invalid.'],
        'zeroBalanceAlert.enabled': ['The selected zero balance alert.enabled is invalid.'],
      },
    });
  });

  it.each(['on', 5, true, [1]])('when a section is %p instead of an object, then 422 naming the section', async (section) => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: section });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid('lowBalanceAlert', 'low balance alert'));
  });

  it('when a section is null, then it counts as not given', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: null, zeroBalanceAlert: { enabled: false } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(doc(account, { lowBalanceAlert: { enabled: true, threshold: 10 }, zeroBalanceAlert: { enabled: false } }));
  });

  it('when unknown members are posted, then they are ignored', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.post(PATH).send({ apiKey: account.apiKey, other: 1, lowBalanceAlert: { colour: 'red', threshold: 11 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(doc(account, { lowBalanceAlert: { enabled: true, threshold: 11 }, zeroBalanceAlert: { enabled: true } }));
  });

  it('when concurrent partial updates name different fields, then both survive', async () => {
    const account = await h.account({ 1: 10 });
    await Promise.all([
      h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: { threshold: 77 } }),
      h.http.post(PATH).send({ apiKey: account.apiKey, zeroBalanceAlert: { enabled: false } }),
      h.http.post(PATH).send({ apiKey: account.apiKey, lowBalanceAlert: { enabled: false } }),
    ]);
    expect((await h.http.get(PATH).query({ apiKey: account.apiKey })).body).toEqual(
      doc(account, { lowBalanceAlert: { enabled: false, threshold: 77 }, zeroBalanceAlert: { enabled: false } }),
    );
  });
});
