// Spectral function (.spectral.yaml, rule petstore-security-roles): an operation's security names
// a scheme of components.securitySchemes, and an operation whose requirement names roles documents
// the 403 that a key without them gets, so that the next operation with a role gets it too.
// It stands in for spectral:oas's oas3-operation-security-defined, which reads every requirement's
// list as OAuth scopes; OpenAPI 3.1 lets a requirement of any scheme list role names, which is how
// openapi.yaml says who may call what (src/auth/roles.ts). Plain JavaScript: Spectral loads it as it is.
export default (operation, _options, { document, path }) => {
  if (operation === null || typeof operation !== 'object') return [];
  const spec = document.data ?? {};
  const schemes = spec.components?.securitySchemes ?? {};
  const requirements = operation.security ?? spec.security ?? [];
  const problems = [];
  requirements.forEach((requirement, index) => {
    for (const [scheme, roles] of Object.entries(requirement ?? {})) {
      if (!(scheme in schemes))
        problems.push({
          message: `security names ${scheme}, which components.securitySchemes does not define`,
          path: [...path, 'security', index, scheme],
        });
      else if (!Array.isArray(roles) || roles.some((role) => typeof role !== 'string' || role === ''))
        problems.push({
          message: `${scheme}'s roles must be a list of names`,
          path: [...path, 'security', index, scheme],
        });
    }
  });
  const named = requirements.some((requirement) =>
    Object.values(requirement ?? {}).some((roles) => Array.isArray(roles) && roles.length > 0),
  );
  if (named && operation.responses?.['403'] === undefined) {
    problems.push({
      message: `${operation.operationId ?? 'this operation'} names roles in its security requirement, so it must document 403 (#/components/responses/Forbidden)`,
      path: [...path, 'responses'],
    });
  }
  return problems;
};
