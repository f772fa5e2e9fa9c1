// The one place where the service takes its shapes from the generated spec types.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { components, operations, webhooks } from '../../generated/openapi.js';

type Schemas = components['schemas'];

export type Pet = Schemas['Pet'];
export type NewPet = Schemas['NewPet'];
export type PetPatch = Schemas['PetPatch'];
export type PetStatus = Schemas['PetStatus'];
export type PetId = Schemas['PetId'];
export type Order = Schemas['Order'];
export type NewOrder = Schemas['NewOrder'];
export type OrderId = Schemas['OrderId'];
export type OrderStatus = Schemas['OrderStatus'];
export type CancelReason = NonNullable<Order['cancelReason']>;
export type WebhookEndpointBody = Schemas['WebhookEndpoint'];
export type ErrorBody = Schemas['Error'];
export type ErrorCode = ErrorBody['code'];

/** The operations the service serves: those of `paths`. The spec's `webhooks` are operations too, which it sends. */
type WebhookOperation = { [Name in keyof webhooks]: webhooks[Name]['post'] }[keyof webhooks];
export type OperationId = {
  [K in keyof operations]: operations[K] extends WebhookOperation ? never : K;
}[keyof operations];

type Parameters<K extends OperationId> = operations[K]['parameters'];
type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<K extends OperationId> = operations[K]['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 203 | 204>;
/** A response without content (204) has no body: its handler resolves to undefined. */
type ContentOf<R> = R extends { content: object } ? JsonContent<R> : undefined;

/** The body of an operation's success response, as the spec defines it. */
export type SuccessBody<K extends OperationId> = ContentOf<Responses<K>[SuccessStatus<K>]>;

/** A request body of any one media type (application/json, application/merge-patch+json). */
type RequestBody<K extends OperationId> = operations[K] extends { requestBody: { content: infer C } }
  ? C[keyof C]
  : never;

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
 * The fields of a response `R` that the spec's `T` does not define, through arrays and nested
 * objects: what the serializer would drop without a word.
 */
export type UndeclaredFields<R, T> = R extends readonly (infer Item)[]
  ? T extends readonly (infer Allowed)[]
    ? UndeclaredFields<Item, Allowed>
    : never
  : R extends object
    ? T extends object
      ? | Exclude<keyof R, keyof T>
        | { [P in keyof R & keyof T]-?: UndeclaredFields<R[P], NonNullable<T[P]>> }[keyof R & keyof T]
      : never
    : never;

type HandlerResult<H> = H extends (...args: never[]) => Promise<infer R> ? R : never;
type Inexact<Written> = {
  [K in keyof Written & OperationId]: [UndeclaredFields<HandlerResult<Written[K]>, SuccessBody<K>>] extends [never]
    ? never
    : K;
}[keyof Written & OperationId];

/** The message for handlers that return undeclared fields; per operation, so nothing is built when there are none. */
type InexactMessage<Written, K> = K extends keyof Written & OperationId
  ? `${K} returns ${UndeclaredFields<HandlerResult<Written[K]>, SuccessBody<K>> & string}, which openapi.yaml does not define for it: take it out of ${HandlerFileOf<K>}, or add it to the spec`
  : never;

/**
 * What the compiler says of the handlers in src/handlers/index.ts when they do not match the spec:
 * an operation without a handler (naming the file to write), or a handler that returns a field the
 * spec does not define for it (handlers are written with `satisfies OperationHandler<…>`, so that
 * their own response types reach this check).
 */
export type EveryHandler<Written> = [Exclude<OperationId, keyof Written>] extends [never]
  ? [Inexact<Written>] extends [never]
    ? OperationHandlers
    : InexactMessage<Written, Inexact<Written>>
  : `openapi.yaml has ${Exclude<OperationId, keyof Written> & string} without a handler: write ${HandlerFileOf<Exclude<OperationId, keyof Written> & string>} and add it to src/handlers/index.ts`;
