// The contract engine's public face: what a project imports to check an API against its OpenAPI
// document (README.md beside this file says how).
export { responseChecks, bigintText, ContractViolation, describe, normalized } from './response-checks.js';
export type { ApiResponse, NamedProperty, Sender } from './response-checks.js';
export { inHeader, parametersOf, requestGenerators, unauthorized } from './api-requests.js';
export type {
  ApiRequest,
  BrokenRequest,
  ErrorVocabulary,
  Expectation,
  OpaqueParameter,
  OpaqueParameters,
  QueryKnowledge,
  RequestGenerators,
  ValidRequest,
} from './api-requests.js';
export { contractOf } from './document-contract.js';
export type { Contract, HttpResponse } from './document-contract.js';
export { binaryString } from './code-points.js';
export { INT64_MAX, INT64_MIN, parseJson } from './exact-json.js';
export { httpTarget, NoResponse, retryAfterMs } from './http-target.js';
export type { Target, TargetOptions } from './http-target.js';
export { nextTarget } from './link-header.js';
export { liveChecks, namePrefix } from './live-checks.js';
export type { LiveResponse, LiveChecks, LiveOptions, LiveSender, OperationCount } from './live-checks.js';
export { basePathOf, operationsOf, pathParametersOf, requiredScopesOf, resolveRef } from './openapi-document.js';
export type { OpenApiDocument, Operation } from './openapi-document.js';
export type { ContractPlugin, ReadBack, RunContext } from './plugin.js';
export { reformattedJson, schemaArbitraries, toJson } from './schema-arbitraries.js';
export { createValidator } from './schema-validator.js';
export { scopeChecks } from './scope-checks.js';
export type { Cleanup, OwnerOutcome } from './live-options.js';
export { ownedSchemaNames } from './owned-schemas.js';
export type { ScopeOutcome } from './scope-checks.js';
export { linkedBodyMembersOf, linkedHeadersOf, linkedValues, linksOf } from './spec-links.js';
export type { SpecLink } from './spec-links.js';
