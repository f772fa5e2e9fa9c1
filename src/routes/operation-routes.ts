// Turns each operation of the spec into Fastify route options for fastify-openapi-glue:
// the handler named by its operationId, plus the hooks its spec markers call for.
import type { FastifyReply, FastifyRequest, onRequestHookHandler, RouteHandlerMethod } from 'fastify';
import type { Authenticator } from '../auth/bearer-auth.js';
import type { Limit } from '../limits/rate-limiter.js';
import { requiredRolesOf } from '../auth/roles.js';
import type { OpenApiDocument, Operation, SecurityRequirement } from '../openapi/openapi-spec.js';
import { basePathOf, operationsOf } from '../openapi/openapi-spec.js';
import { lifecycleOf, type Lifecycle } from '../openapi/lifecycle.js';
import type { OperationHandlers, OperationId } from '../types/api.js';
import { bodyPresenceCheck } from './body-presence.js';
import { deprecationHeadersOf, retirementCheckOf } from './deprecation-headers.js';

export interface OperationRoutesOptions {
  spec: OpenApiDocument;
  handlers: OperationHandlers;
  /** One authenticator per security scheme name in the spec. */
  authenticators: Record<string, Authenticator>;
  /** Sent on every response of every operation (security headers), whatever its status. */
  headers: Readonly<Record<string, string>>;
  /** Makes the counter of a deprecated operation's authenticated calls, per client. */
  countDeprecatedCalls?: (operationId: string) => (client: string) => void;
  /**
   * The time as Unix time in ms, which brownouts and the sunset are compared with (Date.now unless a test moves it).
   */
  clock?: () => number;
  /** Refuses an authenticated request over its client's quota or share (src/limits/). */
  limit?: Limit;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the routes of operations the spec marks deprecated (the request log says so). */
    deprecated?: true;
  }
}

export interface OperationRouteOptions {
  onRequest: onRequestHookHandler;
  handler: RouteHandlerMethod;
  config?: { deprecated: true };
}

/** Builds every operation's route options up front, so that a gap in the wiring fails at start-up. */
export function createOperationResolver(options: OperationRoutesOptions) {
  const operations = operationsOf(options.spec);
  const basePath = basePathOf(options.spec);
  const routes = new Map(
    operations.map((operation) => [
      operation.operationId,
      routeOptionsOf(operation, lifecycleOf(operation, operations), basePath, options),
    ]),
  );
  return (operationId: string): OperationRouteOptions => routes.get(operationId)!;
}

function routeOptionsOf(
  operation: Operation,
  lifecycle: Lifecycle,
  basePath: string,
  {
    spec,
    handlers,
    authenticators,
    headers: common,
    countDeprecatedCalls,
    clock = Date.now,
    limit,
  }: OperationRoutesOptions,
): OperationRouteOptions {
  if (!(operation.operationId in handlers)) {
    throw new Error(
      `openapi.yaml: no handler for operationId ${operation.operationId}: write ${handlerFileOf(operation.operationId)} and add it to src/handlers/index.ts`,
    );
  }
  const handle = handlers[operation.operationId as OperationId] as (
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<unknown>;
  const status = successStatusOf(operation);
  // Computed once: one reply.headers call per request sets them all.
  const headers = { ...common, ...deprecationHeadersOf(lifecycle, basePath) };
  const authenticate = authenticatorFor(operation.object.security ?? spec.security ?? [], authenticators, operation);
  // The roles its security requirement names: a key without one of them gets 403.
  const roles = requiredRolesOf(operation, spec);

  const checkBodyPresence = bodyPresenceCheck(operation.object, operation.method);
  const deprecated = lifecycle.deprecation !== undefined;
  const countCall = deprecated ? countDeprecatedCalls?.(operation.operationId) : undefined;
  const checkRetirement = retirementCheckOf(lifecycle, basePath);
  // Only an authenticated request has a client whose quota and share can be counted.
  const limitClient = authenticate === undefined ? undefined : limit;

  return {
    ...(deprecated ? { config: { deprecated: true } } : {}),
    // One synchronous hook rather than three async ones: it runs on every request, and each async
    // hook costs a promise and a microtask. Order matters: security and deprecation headers go on
    // every response, authentication precedes any other check, a client over its quota or share is
    // refused before any work is done for it, and a call in a brownout or after the sunset is
    // counted, then refused whatever else it holds.
    onRequest(request, reply, done) {
      try {
        reply.headers(headers);
        authenticate?.(request, reply, roles);
        // Refused: served already, so the hook ends without done().
        if (limitClient?.(request, reply) === true) return;
        countCall?.(request.client);
        checkRetirement?.(clock());
        checkBodyPresence(request, reply);
      } catch (error) {
        done(error as Error);
        return;
      }
      done();
    },
    // The status is set first and the handler's promise handed to Fastify as it is: no wrapper
    // promise per request. Errors are served by the error handler, which sets its own status.
    handler(request, reply) {
      reply.code(status);
      return handle(request, reply);
    },
  };
}

function successStatusOf(operation: Operation): number {
  const statuses = Object.keys(operation.object.responses).filter((status) => /^2\d\d$/.test(status));
  if (statuses.length !== 1) {
    throw new Error(`openapi.yaml: operation ${operation.operationId} must document exactly one 2xx response`);
  }
  return Number(statuses[0]);
}

function authenticatorFor(
  requirements: SecurityRequirement[],
  authenticators: Record<string, Authenticator>,
  operation: Operation,
): Authenticator | undefined {
  if (requirements.length === 0) return undefined;
  const schemes = requirements.flatMap((requirement) => Object.keys(requirement));
  const [scheme] = schemes;
  const authenticate = scheme === undefined ? undefined : authenticators[scheme];
  if (requirements.length !== 1 || schemes.length !== 1 || authenticate === undefined) {
    throw new Error(
      `openapi.yaml: operation ${operation.operationId} needs security [${schemes.join(', ')}]; ` +
        `the service provides exactly one of: ${Object.keys(authenticators).join(', ')}`,
    );
  }
  return authenticate;
}

/** The file of an operation's handler, as HandlerFileOf spells it: `updatePet` → `src/handlers/update-pet.ts`. */
export function handlerFileOf(operationId: string): string {
  return `src/handlers/${operationId.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}.ts`;
}
