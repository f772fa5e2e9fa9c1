import t from 'tap';
import { formatSchemaErrors } from '../../src/validation/error-messages.js';
import { createAjv, toAjvSchema } from '../../src/validation/ajv.js';

const error = (keyword: string, instancePath: string, params: Record<string, unknown> = {}, message?: string) => ({
  keyword,
  instancePath,
  schemaPath: '',
  params,
  ...(message === undefined ? {} : { message }),
});

t.test('messages name the part and path of each problem, once', async (t) => {
  const formatted = formatSchemaErrors(
    [
      error('type', '/owner/first~1last', { type: 'string' }, 'must be string'),
      error('type', '/owner/first~1last', { type: 'string' }, 'must be string'),
      error('type', '/nickname', { type: 'null' }, 'must be null'),
      error('additionalProperties', '/owner', { additionalProperty: 'age' }),
      error('custom', ''),
    ],
    'body',
  );
  t.equal(
    formatted.message,
    "body.owner.first/last must be a string; body.nickname must be null; body.owner has unknown field 'age'; body is invalid",
  );
  t.equal(
    formatSchemaErrors([error('required', '', { missingProperty: 'x-trace' })], 'headers').message,
    'header x-trace is required',
  );
});

t.test('int32 is checked by its own format', async (t) => {
  const validate = createAjv().compile(
    toAjvSchema({ type: 'object', properties: { n: { type: 'integer', format: 'int32' } } }),
  );
  t.ok(validate({ n: 2 ** 31 - 1 }));
  t.notOk(validate({ n: 2 ** 31 }));
});
