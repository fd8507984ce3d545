import { generateAccessToken, generateApiKey, hashSecret } from '@platform/credentials';
import { RESEARCH_POOL } from '@platform/testing';
import { ACCESS_RESTRICTED, item, JSON_TYPE, useHarness, XML_DECLARATION, XML_TYPE } from './harness';

const RESEARCH = RESEARCH_POOL;
const PRODUCT_ID_INVALID = { code: 422, messages: { productId: ['The selected product id is invalid.'] } };
const PRODUCT_ID_INVALID_XML = `${XML_DECLARATION}<xml><code>422</code><messages><productId><item>The selected product id is invalid.</item></productId></messages></xml>`;
const UNAUTHORIZED = { code: 401, messages: ACCESS_RESTRICTED };

const h = useHarness();

describe('GET /user-service/account-balance', () => {
  it('when the account holds the lookup and research pools, then one item per product ordered by id, pool members sharing credits', async () => {
    const account = await h.account({ 1: 4837993, 14: 50 });
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body).toEqual({
      data: [
        item(1, 'WHOIS API', 4837993),
        ...RESEARCH.filter(([id]) => id < 24).map(([id, name]) => item(id, name, 50)),
        item(24, 'Bulk WHOIS API', 4837993),
        ...RESEARCH.filter(([id]) => id > 24).map(([id, name]) => item(id, name, 50)),
      ],
    });
  });

  it('when productId names one product, then the exact real body with only that item', async () => {
    const account = await h.account({ 1: 4837993 });
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, productId: '1' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"data":[{"product_id":1,"product":{"id":1,"name":"WHOIS API"},"credits":4837993}]}');
  });

  it('when productId names the other member of a shared pool, then that product shows the pool credits', async () => {
    const account = await h.account({ 1: 70 });
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, productId: '24' });
    expect(res.body).toEqual({ data: [item(24, 'Bulk WHOIS API', 70)] });
  });

  it('when outputFormat is XML, then the real XML layout with & escaped in product 28', async () => {
    const account = await h.account({ 28: 5 });
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, outputFormat: 'XML' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(XML_TYPE);
    expect(res.text).toBe(
      `${XML_DECLARATION}<xml><data><item><product_id>28</product_id><product><id>28</id><name>Website Contacts &amp; Categorization Database</name></product><credits>5</credits></item></data></xml>`,
    );
  });

  it('when outputFormat is lower-case json or xml, then it is accepted', async () => {
    const account = await h.account({ 7: 3 });
    const json = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, outputFormat: 'json' });
    expect(json.body).toEqual({ data: [item(7, 'Email Verification API', 3)] });
    const xml = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, outputFormat: 'xml' });
    expect(xml.text).toBe(
      `${XML_DECLARATION}<xml><data><item><product_id>7</product_id><product><id>7</id><name>Email Verification API</name></product><credits>3</credits></item></data></xml>`,
    );
  });

  it('when the account holds two single-product pools, then XML lists one item per product in id order', async () => {
    const account = await h.account({ 29: 1, 28: 2 });
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, outputFormat: 'XML' });
    expect(res.text).toBe(
      `${XML_DECLARATION}<xml><data>` +
        '<item><product_id>28</product_id><product><id>28</id><name>Website Contacts &amp; Categorization Database</name></product><credits>2</credits></item>' +
        '<item><product_id>29</product_id><product><id>29</id><name>Website Contacts API</name></product><credits>1</credits></item>' +
        '</data></xml>',
    );
  });

  it('when productId is a catalogue product the account does not hold, then 200 with an empty list (JSON and XML)', async () => {
    const account = await h.account({ 1: 10 });
    const json = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, productId: '7' });
    expect(json.status).toBe(200);
    expect(json.text).toBe('{"data":[]}');
    const xml = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, productId: '7', outputFormat: 'XML' });
    expect(xml.text).toBe(`${XML_DECLARATION}<xml><data/></xml>`);
  });

  it('when the account holds nothing, then 200 with an empty list', async () => {
    const account = await h.account();
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('when every pool of the account is at 0, then the balance still reads (200)', async () => {
    const account = await h.account({ 1: 0, 8: 0 });
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [item(1, 'WHOIS API', 0), item(8, 'IP Geolocation API', 0), item(24, 'Bulk WHOIS API', 0)] });
  });

  it.each(['2', '0', '999', '110', 'abc', '1.0', '-1', '1 OR 1=1', '99999999999999999999', ' 1'])(
    'when productId is %p (not a catalogue id), then 422 with the productId message',
    async (productId) => {
      const account = await h.account({ 1: 10 });
      const res = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, productId });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(PRODUCT_ID_INVALID);
    },
  );

  it('when productId is invalid and outputFormat is XML, then the 422 in XML', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, productId: 'x', outputFormat: 'XML' });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe(XML_TYPE);
    expect(res.text).toBe(PRODUCT_ID_INVALID_XML);
  });

  it('when outputFormat is not JSON or XML, then 422 in JSON; together with a bad productId both are reported', async () => {
    const account = await h.account({ 1: 10 });
    const alone = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, outputFormat: 'YAML' });
    expect(alone.status).toBe(422);
    expect(alone.headers['content-type']).toBe(JSON_TYPE);
    expect(alone.body).toEqual({ code: 422, messages: { outputFormat: ['The selected output format is invalid.'] } });
    const both = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, outputFormat: 'YAML', productId: 'x' });
    expect(both.body).toEqual({
      code: 422,
      messages: { outputFormat: ['The selected output format is invalid.'], productId: ['The selected product id is invalid.'] },
    });
  });

  it('when the credential is missing, then 401 in JSON and in XML, without WWW-Authenticate', async () => {
    const json = await h.http.get('/user-service/account-balance');
    expect(json.status).toBe(401);
    expect(json.headers['content-type']).toBe(JSON_TYPE);
    expect(json.body).toEqual(UNAUTHORIZED);
    expect(json.headers['www-authenticate']).toBeUndefined();
    const xml = await h.http.get('/user-service/account-balance').query({ outputFormat: 'XML' });
    expect(xml.status).toBe(401);
    expect(xml.text).toBe(`${XML_DECLARATION}<xml><code>401</code><messages>${ACCESS_RESTRICTED}</messages></xml>`);
  });

  it.each([
    ['an unknown key', 'at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a garbled token', 'tk_notreallyatoken'],
    ['a well-formed token that was never issued', generateAccessToken(hashSecret(generateApiKey()))],
    ['free text', 'hello'],
  ])('when the credential is %s, then 401', async (_name, apiKey) => {
    const res = await h.http.get('/user-service/account-balance').query({ apiKey });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('when a bad credential is sent as Bearer, then 401 with WWW-Authenticate for the user realm', async () => {
    const res = await h.http.get('/user-service/account-balance').set('Authorization', 'Bearer tk_garbage');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="user", error="invalid_token", error_description="invalid_credential"');
  });

  it('when the credential is wrong and productId is invalid too, then 401 comes before 422', async () => {
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: 'at_wrong', productId: 'x', outputFormat: 'XML' });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe(XML_TYPE);
  });

  it('when the key has been replaced, then the old key gets 401', async () => {
    const account = await h.account({ 1: 10 });
    const rotated = await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
    expect(rotated.status).toBe(200);
    const old = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey });
    expect(old.status).toBe(401);
    const fresh = await h.http.get('/user-service/account-balance').query({ apiKey: rotated.body.apiKey });
    expect(fresh.status).toBe(200);
  });
});

describe('a token in place of the key', () => {
  it('when a token is presented in apiKey or as Bearer, then both read the same balance', async () => {
    const account = await h.account({ 1: 42 });
    const token = await h.token(account);
    const inParam = await h.http.get('/user-service/account-balance').query({ apiKey: token });
    const asBearer = await h.http.get('/user-service/account-balance').set('Authorization', `Bearer ${token}`);
    expect(inParam.status).toBe(200);
    expect(asBearer.status).toBe(200);
    expect(inParam.body).toEqual({ data: [item(1, 'WHOIS API', 42), item(24, 'Bulk WHOIS API', 42)] });
    expect(asBearer.body).toEqual(inParam.body);
  });

  it('when both apiKey and Bearer are sent, then apiKey is the credential', async () => {
    const account = await h.account({ 1: 42 });
    const token = await h.token(account);
    const res = await h.http.get('/user-service/account-balance').query({ apiKey: 'at_wrong' }).set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(401);
  });

  it('when the key was rotated after the token was issued, then the token gets 401 both ways', async () => {
    const account = await h.account({ 1: 42 });
    const token = await h.token(account);
    expect((await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey })).status).toBe(200);
    expect((await h.http.get('/user-service/account-balance').query({ apiKey: token })).status).toBe(401);
    expect((await h.http.get('/user-service/account-balance').set('Authorization', `Bearer ${token}`)).status).toBe(401);
  });

  it('when the token has been revoked one by one, then 401', async () => {
    const account = await h.account({ 1: 42 });
    const token = await h.token(account);
    await h.access.revokeToken(token);
    expect((await h.http.get('/user-service/account-balance').query({ apiKey: token })).status).toBe(401);
  });
});

describe('POST and the legacy path', () => {
  it('when POSTed as JSON, then the same answer as GET', async () => {
    const account = await h.account({ 1: 9 });
    const res = await h.http.post('/user-service/account-balance').send({ apiKey: account.apiKey, productId: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [item(1, 'WHOIS API', 9)] });
  });

  it('when POSTed as a form, then the same answer as GET', async () => {
    const account = await h.account({ 1: 9 });
    const res = await h.http
      .post('/user-service/account-balance')
      .type('form')
      .send({ apiKey: account.apiKey, productId: '24', outputFormat: 'xml' });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `${XML_DECLARATION}<xml><data><item><product_id>24</product_id><product><id>24</id><name>Bulk WHOIS API</name></product><credits>9</credits></item></data></xml>`,
    );
  });

  it('when POST carries parameters in both body and query string, then the body wins', async () => {
    const account = await h.account({ 1: 9 });
    const res = await h.http
      .post('/user-service/account-balance')
      .query({ apiKey: 'at_wrong', productId: 'x', outputFormat: 'XML' })
      .send({ apiKey: account.apiKey, productId: '24', outputFormat: 'JSON' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [item(24, 'Bulk WHOIS API', 9)] });
  });

  it('when POST has only a query string, then the query string is used', async () => {
    const account = await h.account({ 1: 9 });
    const res = await h.http.post('/user-service/account-balance').query({ apiKey: account.apiKey });
    expect(res.status).toBe(200);
  });

  it.each(['get', 'post'] as const)('when the legacy /service/account-balance is called with %s, then the same answer', async (method) => {
    const account = await h.account({ 28: 5 });
    const res = await h.http[method]('/service/account-balance').query({ apiKey: account.apiKey, outputFormat: 'XML' });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `${XML_DECLARATION}<xml><data><item><product_id>28</product_id><product><id>28</id><name>Website Contacts &amp; Categorization Database</name></product><credits>5</credits></item></data></xml>`,
    );
    const bad = await h.http[method]('/service/account-balance').query({ apiKey: account.apiKey, productId: '3' });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual(PRODUCT_ID_INVALID);
  });

  it('when a response is sent, then it carries X-Request-Id (echoed when given)', async () => {
    const res = await h.http.get('/user-service/account-balance').set('X-Request-Id', 'req-123');
    expect(res.headers['x-request-id']).toBe('req-123');
  });
});
