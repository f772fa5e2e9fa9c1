// Spectral function (.spectral.yaml, rule petstore-link-targets): an OpenAPI link names an operation
// of this document by operationId, and fills path parameters of that operation, or members of its
// request body (`requestBody: {petId: …}`), each from the answer's body (`$response.body#/…`), and
// perhaps header parameters, each from one of the answer's headers
// (`header.If-Match: $response.header.ETag`): the links the contract checks follow
// (src/contract/spec-links.ts), which would stop on any other. Plain JavaScript: Spectral loads
// it as it is.
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const BODY_EXPRESSION = /^\$response\.body#(\/[^/]*)*$/;
const HEADER_EXPRESSION = /^\$response\.header\.[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export default (link, _options, { document, path }) => {
  const problems = [];
  const problem = (field, message) => problems.push({ message, path: [...path, ...field] });
  if (link === null || typeof link !== 'object') return problems;
  if (typeof link.operationId !== 'string') return [{ message: 'a link names its operation by operationId', path }];
  const targets = Object.entries(document.data?.paths ?? {}).flatMap(([route, item]) =>
    METHODS.filter((method) => item?.[method]?.operationId === link.operationId).map((method) => [route, item[method]]),
  );
  if (targets.length !== 1)
    return [
      {
        message: `a link's operationId must name an operation of this document, not ${link.operationId}`,
        path: [...path, 'operationId'],
      },
    ];
  const [route, target] = targets[0];
  const pathParameters = [...route.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const headerParameters = (target.parameters ?? [])
    .map((parameter) => (typeof parameter?.$ref === 'string' ? resolved(document.data, parameter.$ref) : parameter))
    .filter((parameter) => parameter?.in === 'header')
    .map((parameter) => parameter.name.toLowerCase());
  const parameters = Object.entries(link.parameters ?? {});
  const body = link.requestBody;
  const fillsBody = body !== null && typeof body === 'object' && !Array.isArray(body);
  if (body !== undefined && !fillsBody)
    problem(['requestBody'], "a link's requestBody is an object of body members, each $response.body#/…");
  if (!parameters.some(([name]) => !name.startsWith('header.')) && !fillsBody)
    problem(['parameters'], 'a link fills at least one path parameter or body member');
  for (const [name, expression] of parameters) {
    if (name.startsWith('header.')) {
      if (!headerParameters.includes(name.slice('header.'.length).toLowerCase()))
        problem(['parameters', name], `${link.operationId} has no header parameter ${name}`);
      if (typeof expression !== 'string' || !HEADER_EXPRESSION.test(expression))
        problem(
          ['parameters', name],
          `${name}: a header's value comes from the answer's headers, $response.header.<name>`,
        );
      continue;
    }
    if (!pathParameters.includes(name.replace(/^path\./, '')))
      problem(['parameters', name], `${link.operationId} has no path parameter ${name}`);
    if (typeof expression !== 'string' || !BODY_EXPRESSION.test(expression))
      problem(['parameters', name], `${name}: a link's value comes from the answer's body, $response.body#/…`);
  }
  if (fillsBody) {
    if (target.requestBody === undefined) problem(['requestBody'], `${link.operationId} takes no request body`);
    for (const [name, expression] of Object.entries(body))
      if (typeof expression !== 'string' || !BODY_EXPRESSION.test(expression))
        problem(['requestBody', name], `${name}: a link's value comes from the answer's body, $response.body#/…`);
  }
  return problems;
};

/** The object a local `$ref` (`#/components/…`) names in `document`. */
function resolved(document, ref) {
  return ref
    .slice(2)
    .split('/')
    .reduce((node, segment) => node?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')], document);
}
