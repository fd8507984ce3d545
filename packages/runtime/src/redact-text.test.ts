import fc from 'fast-check';
import { redactText } from './redact';

const API_KEY = 'at_Ab3dEf6hIj9kLm2nOp5qRs8tUvWxY';
const TOKEN = 'tk_9aZ-_kLmNoPqRsTuVwXyZ0123456789abcdefghijkDEF_-1';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJhdXRoIiwiYXVkIjoidXNlciJ9.s1gn4tur3-_x';

describe('redactText: JWTs inside dotted text', () => {
  it.each([
    ['after a dotted word', `host.${JWT}`, 'host.[redacted]'],
    ['after two dotted words', `a.b.${JWT}`, 'a.b.[redacted]'],
    ['glued to a word', `jwt_${JWT}`, 'jwt_[redacted]'],
    ['followed by more segments', `${JWT}.tail`, '[redacted].tail'],
    ['twice in one chain', `${JWT}.${JWT}`, '[redacted].[redacted]'],
  ])('when a JWT stands %s, then it is gone and the rest stays', (_where, text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it('when dotted text holds no JWT, then it is unchanged', () => {
    for (const text of ['services.user.src.app', 'v1.2.3', 'eyJ.x.y', 'xeyJ..z', 'a.eyJb']) expect(redactText(text)).toBe(text);
  });
});

describe('redactText: time linear in the text (a log line may carry 16 KiB and more of client input)', () => {
  // Before: the JWT and URL patterns rescanned each run from every start, 250 ms on 16 KiB,
  // about 4 s on 64 KiB. Linear now: these take a few milliseconds. The fastest of three runs
  // must stay under 500 ms: far below the quadratic cost, far above the linear one even on a
  // loaded machine (a single run against 100 ms failed there).
  it.each([
    ['a run of letters', 'a'.repeat(64 * 1024)],
    ['a run of JWT header starts', 'eyJ'.repeat(22_000)],
    ['a run of scheme characters', 'a1+.-'.repeat(13_000)],
    ['many URL prefixes without a password', 'a://b:'.repeat(11_000)],
    ['many dotted chains', 'eyJa.b'.repeat(11_000)],
    ['a Bearer followed by blanks', `Bearer${' '.repeat(64 * 1024)}!`],
  ])('when the text is %s (64 KiB), then redaction takes milliseconds, not seconds', (_what, text) => {
    const runs = [0, 1, 2].map(() => {
      const started = performance.now();
      redactText(text);
      return performance.now() - started;
    });
    expect(Math.min(...runs)).toBeLessThan(500);
  });
});

describe('redactText: properties', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '.', '_', '-', ' ', '=', ':', '/', '"', 'é'), maxLength: 40 });

  it('when a key, a token or a JWT sits anywhere in arbitrary text, then it never survives', () => {
    fc.assert(
      fc.property(text, fc.constantFrom(API_KEY, TOKEN, JWT), text, (before, secret, after) => {
        const result = redactText(`${before}${secret}${after}`);
        expect(result).not.toContain(secret);
        expect(result).toContain('[redacted]');
      }),
    );
  });

  it('when text is redacted twice, then the second pass changes nothing', () => {
    fc.assert(
      fc.property(text, fc.constantFrom(API_KEY, TOKEN, JWT, `Bearer ${TOKEN}`, 'postgres://u:pw@db/x'), text, (before, secret, after) => {
        const once = redactText(`${before}${secret}${after}`);
        expect(redactText(once)).toBe(once);
      }),
    );
  });
});
