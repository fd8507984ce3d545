import { z } from 'zod';
import { AppError, invalidParams, Params } from '@platform/wire';
import { absentIfEmpty, fieldMessage, validateDocument } from './document-schema';
import { declareRoute } from './route-declaration';
import { validateParamsWith, validatePath } from './route-validation';
import { adminEdge } from './route-edge';

const body = z.object({
  requestId: absentIfEmpty(z.string().max(5)),
  productId: absentIfEmpty(
    z.union([
      z.number().int(),
      z
        .string()
        .regex(/^[0-9]+$/)
        .transform(Number),
    ]),
  ),
  name: z
    .string()
    .refine((name) => name.length <= 3, fieldMessage('The name may not be greater than 3 characters.'))
    .optional(),
});

function messages(raw: unknown): unknown {
  const errors = {};
  const outcome = validateDocument(body, raw, errors);
  return outcome.ok ? { value: outcome.value } : { errors, accepted: outcome.accepted };
}

describe('validateDocument', () => {
  it('when the document is valid, then its parsed value', () => {
    expect(messages({ requestId: 'r1', productId: '7' })).toEqual({ value: { requestId: 'r1', productId: 7 } });
  });

  it('when members are absent, null or empty, then `required`, also for a union; any other problem is `invalid`', () => {
    expect(messages({ requestId: '', productId: null, name: 5 })).toEqual({
      errors: {
        requestId: ['The request id field is required.'],
        productId: ['The product id field is required.'],
        name: ['The selected name is invalid.'],
      },
      accepted: {},
    });
  });

  it('when a rule of the schema carries its own wording, then that is the message; the accepted members are handed on', () => {
    expect(messages({ requestId: 'r1', productId: 'x', name: 'long' })).toEqual({
      errors: { productId: ['The selected product id is invalid.'], name: ['The name may not be greater than 3 characters.'] },
      accepted: { requestId: 'r1' },
    });
  });
});

describe('validateParamsWith', () => {
  const route = declareRoute({ methods: ['post'], paths: ['/x'], edge: adminEdge, summary: 'X', document: body, responses: {} });
  const catalogue = (accepted: { productId?: number }): Promise<string> =>
    accepted.productId === 7
      ? Promise.resolve('product 7')
      : Promise.reject(invalidParams({ productId: ['The selected product id is invalid.'] }));
  const outcome = async (raw: Record<string, unknown>) => {
    try {
      return await validateParamsWith(route, new Params({}, raw), catalogue);
    } catch (error) {
      if (error instanceof AppError) return error.fields;
      throw error;
    }
  };

  it('when the schema and the rule accept, then the input and the rule’s result', async () => {
    expect(await outcome({ requestId: 'r', productId: 7 })).toEqual({
      input: { document: { requestId: 'r', productId: 7 } },
      ruled: 'product 7',
    });
  });

  it('when the schema refuses one member and the rule another, then both are reported, the rule’s after the schema’s', async () => {
    expect(JSON.stringify(await outcome({ requestId: 'too long', productId: 8 }))).toBe(
      JSON.stringify({ requestId: ['The selected request id is invalid.'], productId: ['The selected product id is invalid.'] }),
    );
  });
});

describe('validatePath', () => {
  it('when a path parameter is refused by its schema, then the path names nothing: not_found', () => {
    const id = {
      id: z
        .string()
        .regex(/^[0-9]+$/)
        .transform(Number),
    };
    expect(validatePath(id, { id: '12' })).toEqual({ id: 12 });
    expect(() => validatePath(id, { id: 'abc' })).toThrow(expect.objectContaining({ code: 'not_found' }) as Error);
  });
});
