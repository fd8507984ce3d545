import { ApiError, errorFromBody } from './api-error.js';

const RESTRICTED = 'Access restricted. Check credits balance or enter the correct API key.';

describe('errorFromBody', () => {
  it('when the body is the code/messages envelope with a string, then code and messages are taken from it', () => {
    const error = errorFromBody(401, { code: 401, messages: RESTRICTED }, 'req-1');
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ name: 'ApiError', status: 401, code: 401, messages: RESTRICTED, requestId: 'req-1' });
    expect(error.message).toBe(`401 ${RESTRICTED}`);
  });

  it('when the envelope holds field messages, then each field can be read and the message names them', () => {
    const error = errorFromBody(422, { code: 422, messages: { grantType: ['The grant type field is required.'], expiresIn: ['Bad.'] } });
    expect(error.fieldMessages('grantType')).toEqual(['The grant type field is required.']);
    expect(error.fieldMessages('productId')).toEqual([]);
    expect(error.message).toBe('422 grantType: The grant type field is required.; expiresIn: Bad.');
  });

  it('when the body is the ErrorMessage envelope, then errorCode is the code and msg the messages', () => {
    const error = errorFromBody(401, { ErrorMessage: { errorCode: 'AUTHENTICATE_01', msg: RESTRICTED } });
    expect(error).toMatchObject({ status: 401, code: 'AUTHENTICATE_01', messages: RESTRICTED });
  });

  it('when the body is an RFC 6749 error, then error is the code and error_description the messages', () => {
    expect(errorFromBody(400, { error: 'invalid_request', error_description: 'token missing' })).toMatchObject({
      code: 'invalid_request',
      messages: 'token missing',
    });
  });

  it('when the body is no envelope, then the status is the code and the status text the messages', () => {
    expect(errorFromBody(502, undefined, undefined, 'Bad Gateway')).toMatchObject({ status: 502, code: 502, messages: 'Bad Gateway' });
    expect(errorFromBody(500, { code: 500, messages: [1, 2] })).toMatchObject({ code: 500, messages: 'HTTP 500' });
  });
});
