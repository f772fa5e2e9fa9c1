// The one place where the service takes its shapes from the generated spec types.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { components, operations } from '../../generated/openapi.js';

type Schemas = components['schemas'];

export type Pet = Schemas['Pet'];
export type NewPet = Schemas['NewPet'];
export type PetStatus = Schemas['PetStatus'];
export type PetId = Schemas['PetId'];
export type ErrorBody = Schemas['Error'];
export type ErrorCode = ErrorBody['code'];

export type OperationId = keyof operations;

type Parameters<K extends OperationId> = operations[K]['parameters'];
type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<K extends OperationId> = operations[K]['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 203>;

/** The body of an operation's success response, as the spec defines it. */
export type SuccessBody<K extends OperationId> = JsonContent<Responses<K>[SuccessStatus<K>]>;

type RequestBody<K extends OperationId> = operations[K] extends { requestBody: infer B } ? JsonContent<B> : never;

/** A request after validation: parameter defaults from the spec have been applied. */
export type OperationRequest<K extends OperationId> = FastifyRequest<{
  Params: NonNullable<Parameters<K>['path']>;
  Querystring: NonNullable<Parameters<K>['query']>;
  Body: RequestBody<K>;
}>;

export type OperationHandler<K extends OperationId> = (
  request: OperationRequest<K>,
  reply: FastifyReply,
) => Promise<SuccessBody<K>>;

/** One handler per operationId: a missing, extra or mistyped handler is a compile error. */
export type OperationHandlers = { [K in OperationId]: OperationHandler<K> };

/** The file of an operation's handler, by the project's naming: `updatePet` → `src/handlers/update-pet.ts`. */
export type HandlerFileOf<K extends string> = `src/handlers/${KebabCase<K>}.ts`;
type KebabCase<S extends string> = S extends `${infer First}${infer Rest}`
  ? `${First extends Lowercase<First> ? First : `-${Lowercase<First>}`}${KebabCase<Rest>}`
  : S;

/**
 * What the compiler says when the spec has an operation without a handler: assigning the handlers
 * to this fails with a message naming the operationId and the file to write.
 */
export type EveryHandler<Written> = [Exclude<OperationId, keyof Written>] extends [never]
  ? OperationHandlers
  : `openapi.yaml has ${Exclude<OperationId, keyof Written> & string} without a handler: write ${HandlerFileOf<Exclude<OperationId, keyof Written> & string>} and add it to src/handlers/index.ts`;

