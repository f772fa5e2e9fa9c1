// The roles keys carry are named by openapi.yaml alone: a security requirement lists the roles its
// operation needs (`bearerAuth: ['pets:write']`), and the roles of a deployment are every name that
// appears in one. Nothing in code lists them, so a new operation's roles come from its spec.
import type { OpenApiDocument, Operation } from '../openapi/openapi-spec.js';
import { operationsOf } from '../openapi/openapi-spec.js';

/** The roles `operation` needs: those of its one security requirement (or the document's). */
export function requiredRolesOf(operation: Operation, spec: OpenApiDocument): readonly string[] {
  const requirements = operation.object.security ?? spec.security ?? [];
  return [...new Set(requirements.flatMap((requirement) => Object.values(requirement).flat()))];
}

/** Every role the spec names, sorted: what a key carries when its entry lists none. */
export function rolesOf(spec: OpenApiDocument): readonly string[] {
  const named = [
    ...(spec.security ?? []),
    ...operationsOf(spec).flatMap((operation) => operation.object.security ?? []),
  ];
  return [...new Set(named.flatMap((requirement) => Object.values(requirement).flat()))].sort();
}
