import { AppError, renderError } from './errors';
import { readOutputFormat } from './output-format';
import { Params } from './params';

const query = (outputFormat: unknown): Params => new Params({ outputFormat }, undefined);

describe('readOutputFormat', () => {
  it('when outputFormat is not given, then JSON', () => {
    expect(readOutputFormat(new Params({}, undefined))).toBe('JSON');
  });

  it('when outputFormat is empty, then JSON (an empty parameter is not given)', () => {
    expect(readOutputFormat(query(''))).toBe('JSON');
  });

  it.each([
    ['JSON', 'JSON'],
    ['json', 'JSON'],
    ['Json', 'JSON'],
    ['XML', 'XML'],
    ['xml', 'XML'],
    ['xMl', 'XML'],
  ] as const)('when outputFormat is %s, then %s (case-insensitive)', (given, expected) => {
    expect(readOutputFormat(query(given))).toBe(expected);
  });

  it('when outputFormat is in a JSON or form body, then it is read from there', () => {
    expect(readOutputFormat(new Params({}, { outputFormat: 'xml' }))).toBe('XML');
  });

  it('when outputFormat is in both body and query, then the body wins', () => {
    expect(readOutputFormat(new Params({ outputFormat: 'xml' }, { outputFormat: 'json' }))).toBe('JSON');
  });

  it.each(['YAML', 'html', ' xml', 'xml ', 'JSONP', '1'])('when outputFormat is %j, then the contract 422', (given) => {
    expect(() => readOutputFormat(query(given))).toThrow(AppError);
    try {
      readOutputFormat(query(given));
    } catch (error) {
      expect(renderError(error, 'codeMessages')).toMatchObject({
        status: 422,
        body: { code: 422, messages: { outputFormat: ['The selected output format is invalid.'] } },
      });
    }
  });

  it('when outputFormat is repeated or structured, then the contract 422', () => {
    expect(() => readOutputFormat(query(['xml', 'json']))).toThrow(AppError);
    expect(() => readOutputFormat(new Params({ 'outputFormat[a]': 'xml' }, undefined))).toThrow(AppError);
  });

  it('when the invalid 422 is rendered, then its JSON body is the contract text exactly', () => {
    let thrown: unknown;
    try {
      readOutputFormat(query('yaml'));
    } catch (error) {
      thrown = error;
    }
    expect(JSON.stringify(renderError(thrown, 'codeMessages').body)).toBe(
      '{"code":422,"messages":{"outputFormat":["The selected output format is invalid."]}}',
    );
  });

  describe('lenient mode (choosing the format of an error body)', () => {
    it('when outputFormat is invalid, then JSON without throwing', () => {
      expect(readOutputFormat(query('yaml'), false)).toBe('JSON');
      expect(readOutputFormat(query(['xml']), false)).toBe('JSON');
    });

    it('when outputFormat is valid, then it is honoured', () => {
      expect(readOutputFormat(query('xml'), false)).toBe('XML');
      expect(readOutputFormat(query(undefined), false)).toBe('JSON');
    });
  });
});
