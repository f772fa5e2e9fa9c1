// Turns schema errors into one message that names each offending part and says what is allowed.
import type { FastifySchemaValidationError, SchemaErrorDataVar } from 'fastify/types/schema.js';
import type { Int64ErrorParams } from './ajv.js';
import { INT64_RANGE } from './int64.js';
import { unescapePointer } from './json-pointer.js';

const PART: Record<SchemaErrorDataVar, string> = {
  body: 'body',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

export function formatSchemaErrors(errors: FastifySchemaValidationError[], dataVar: SchemaErrorDataVar): Error {
  const messages = [...new Set(errors.map((error) => describe(error, dataVar)))];
  return new Error(messages.join('; '));
}

const JSON_TYPES: Record<string, string> = {
  object: 'a JSON object',
  array: 'a JSON array',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

// body.categoryId, but "query parameter limit": a body has fields, a query has named parameters.
function describe(error: FastifySchemaValidationError, dataVar: SchemaErrorDataVar): string {
  const part = PART[dataVar];
  const where = (segments: string[]) =>
    dataVar === 'body' ? ['body', ...segments].join('.') : [part, segments.join('.')].join(' ').trim();
  const path = error.instancePath.split('/').slice(1).map(unescapePointer);
  const name = (child: string) => where([...path, child]);
  const subject = where(path);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${name(String(params['missingProperty']))} is required`;
    case 'additionalProperties':
      return dataVar === 'body' || path.length > 0
        ? `${subject} has unknown field '${String(params['additionalProperty'])}'`
        : `unknown ${part} '${String(params['additionalProperty'])}'`;
    case 'enum':
      return `${subject} must be one of: ${(params['allowedValues'] as unknown[]).join(', ')}`;
    case 'int64':
      return `${subject} must be ${int64Requirement(params as Int64ErrorParams)}`;
    case 'type': {
      // One type, or several (a nullable value: string,null).
      const types = String(params['type']).split(',');
      return `${subject} must be ${types.map((type) => JSON_TYPES[type]).join(' or ')}`;
    }
    case 'minLength':
      return `${subject} must have at least ${String(params['limit'])} characters`;
    case 'maxLength':
      return `${subject} must have at most ${String(params['limit'])} characters`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}

/** What an int64 value must be, in the words of the constraint it broke (as the spec writes its value). */
function int64Requirement({ constraint, limit, allowedValues }: Int64ErrorParams): string {
  switch (constraint) {
    case 'minimum':
      return `>= ${limit}`;
    case 'maximum':
      return `<= ${limit}`;
    case 'exclusiveMinimum':
      return `> ${limit}`;
    case 'exclusiveMaximum':
      return `< ${limit}`;
    case 'multipleOf':
      return `a multiple of ${limit}`;
    case 'enum':
      return `one of: ${allowedValues!.join(', ')}`;
    case 'const':
      return `${limit}`;
    default:
      return INT64_RANGE;
  }
}
