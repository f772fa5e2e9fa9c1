// The roles keys carry are named by openapi.yaml alone: a security requirement lists the roles its
// operation needs (`bearerAuth: ['pets:write']`), and the roles of a deployment are every name that
// appears in one. Nothing in code lists them, so a new operation's roles come from its spec. Which
// of them a key gets when its entry names none is the spec's too: the bearer scheme's
// `x-default-roles`. Every other role (the operator's) is held only by a key that names it.
import type { OpenApiDocument, Operation } from '../openapi/openapi-spec.js';
import { operationsOf } from '../openapi/openapi-spec.js';

/** The roles of a deployment: every name the spec gives, and those a key without a list gets. */
export interface SpecRoles {
  named: readonly string[];
  byDefault: readonly string[];
}

/** The roles `operation` needs: those of its one security requirement (or the document's). */
export function requiredRolesOf(operation: Operation, spec: OpenApiDocument): readonly string[] {
  const requirements = operation.object.security ?? spec.security ?? [];
  return [...new Set(requirements.flatMap((requirement) => Object.values(requirement).flat()))];
}

/** Every role the spec names, sorted. */
export function roleNamesOf(spec: OpenApiDocument): readonly string[] {
  const named = [
    ...(spec.security ?? []),
    ...operationsOf(spec).flatMap((operation) => operation.object.security ?? []),
  ];
  return [...new Set(named.flatMap((requirement) => Object.values(requirement).flat()))].sort();
}

/**
 * The roles the spec names, and those its security schemes grant a key whose entry lists none
 * (`x-default-roles`; none without it). Throws when a default is not a role the spec names.
 */
export function rolesOf(spec: OpenApiDocument): SpecRoles {
  const named = roleNamesOf(spec);
  const schemes = Object.entries(spec.components.securitySchemes ?? {}) as [string, Record<string, unknown>][];
  const byDefault: string[] = [];
  for (const [name, scheme] of schemes) {
    const roles = scheme['x-default-roles'];
    if (roles === undefined) continue;
    if (!Array.isArray(roles) || !roles.every((role) => typeof role === 'string'))
      throw new Error(`securitySchemes.${name}.x-default-roles must be a list of role names`);
    const unknown = roles.find((role) => !named.includes(role));
    if (unknown !== undefined)
      throw new Error(
        `securitySchemes.${name}.x-default-roles: ${JSON.stringify(unknown)} is not a role any operation needs`,
      );
    byDefault.push(...roles);
  }
  return { named, byDefault: [...new Set(byDefault)].sort() };
}
