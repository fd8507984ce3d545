import { JSON_TYPE, serialize, XML_TYPE } from './render';

describe('serialize', () => {
  it('when the format is JSON, then the body is compact JSON with the contract content type', () => {
    expect(serialize({ accessToken: 't', expiresIn: 3600 }, 'JSON')).toEqual({
      body: '{"accessToken":"t","expiresIn":3600}',
      contentType: 'application/json; charset=utf-8',
    });
    expect(JSON_TYPE).toBe('application/json; charset=utf-8');
  });

  it('when the format is XML, then the body is the contract XML with the XML content type', () => {
    expect(serialize({ apiKey: 'at_x' }, 'XML')).toEqual({
      body: '<?xml version="1.0" encoding="utf-8"?><xml><apiKey>at_x</apiKey></xml>',
      contentType: 'application/xml; charset=utf-8',
    });
    expect(XML_TYPE).toBe('application/xml; charset=utf-8');
  });

  it('when an XML root is named, then it is used', () => {
    expect(serialize({ msg: 'm' }, 'XML', 'ErrorMessage').body).toBe(
      '<?xml version="1.0" encoding="utf-8"?><ErrorMessage><msg>m</msg></ErrorMessage>',
    );
  });

  it('when the value is a bare array, then JSON is an array and XML a list of items', () => {
    expect(serialize([{ id: 'IAB-1' }], 'JSON').body).toBe('[{"id":"IAB-1"}]');
    expect(serialize([{ id: 'IAB-1' }], 'XML').body).toBe('<?xml version="1.0" encoding="utf-8"?><xml><item><id>IAB-1</id></item></xml>');
  });
});
