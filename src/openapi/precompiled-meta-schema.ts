// fastify-openapi-glue checks the spec against the OpenAPI meta-schema at every start (lib/Parser.js,
// preProcessSpec), and its validator (@seriousme/openapi-schema-validator) compiles that meta-schema
// with Ajv each time: 100–150 ms, the largest part of what our start-up costs beyond bare fastify
// (docs/performance/earlier-findings.md, "Earlier findings"). The check still runs on every start; only the
// compiling moves to `npm run generate`, which writes generated/openapi-3.1-meta-validator.js from
// the same schema file.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import {
  metaSchemaFile,
  metaSchemaSha256,
  validate as validateOpenApi31,
} from '../../generated/openapi-3.1-meta-validator.js';

// Not part of the validator's typed interface: the method that compiles (and caches, per instance) the
// meta-schema for an OpenAPI version. test/modules/precompiled-meta-schema.test.ts fails if it goes away.
interface ValidatorInternals {
  getAjvValidator(this: Validator, version: string): unknown;
}

const internals = Validator.prototype as unknown as ValidatorInternals;
const compileMetaSchema = internals.getAjvValidator;
let installed = false;

/**
 * Lets glue's validator use the precompiled OpenAPI 3.1 check, if it was compiled from the meta-schema
 * installed now; otherwise (another version, a validator upgraded without `npm run generate`) it
 * compiles as it always did. Returns whether the precompiled check is in use.
 */
export function usePrecompiledMetaSchema(installedSha256 = installedMetaSchemaSha256()): boolean {
  if (installed) return true;
  if (typeof compileMetaSchema !== 'function' || installedSha256 !== metaSchemaSha256) return false;
  internals.getAjvValidator = function (version) {
    return version === '3.1' ? validateOpenApi31 : compileMetaSchema.call(this, version);
  };
  installed = true;
  return true;
}

export function installedMetaSchemaSha256(
  file = new URL(metaSchemaFile, import.meta.resolve('@seriousme/openapi-schema-validator')),
): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex');
  } catch {
    return undefined;
  }
}
