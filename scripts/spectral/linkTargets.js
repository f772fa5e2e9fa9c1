// Spectral function (.spectral.yaml, rule petstore-link-targets): an OpenAPI link names an operation
// of this document by operationId, and fills only path parameters of that operation, each from the
// answer's body (`$response.body#/…`): the links the contract checks follow
// (src/contract/spec-links.ts), which would stop on any other. Plain JavaScript: Spectral loads
// it as it is.
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const BODY_EXPRESSION = /^\$response\.body#(\/[^/]*)*$/;

export default (link, _options, { document, path }) => {
  const problems = [];
  const problem = (field, message) => problems.push({ message, path: [...path, ...field] });
  if (link === null || typeof link !== 'object') return problems;
  if (typeof link.operationId !== 'string') return [{ message: 'a link names its operation by operationId', path }];
  const targets = Object.entries(document.data?.paths ?? {}).flatMap(([route, item]) =>
    METHODS.filter((method) => item?.[method]?.operationId === link.operationId).map(() => route),
  );
  if (targets.length !== 1) return [{ message: `a link's operationId must name an operation of this document, not ${link.operationId}`, path: [...path, 'operationId'] }];
  const pathParameters = [...targets[0].matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const parameters = Object.entries(link.parameters ?? {});
  if (parameters.length === 0) problem(['parameters'], 'a link fills at least one path parameter');
  for (const [name, expression] of parameters) {
    if (!pathParameters.includes(name.replace(/^path\./, ''))) problem(['parameters', name], `${link.operationId} has no path parameter ${name}`);
    if (typeof expression !== 'string' || !BODY_EXPRESSION.test(expression)) problem(['parameters', name], `${name}: a link's value comes from the answer's body, $response.body#/…`);
  }
  if (link.requestBody !== undefined) problem(['requestBody'], "a link's requestBody is not followed by the contract checks");
  return problems;
};
