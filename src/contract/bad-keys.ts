// Requests without a valid key: what each must get is 401, whatever else is wrong with it.
import fc from 'fast-check';
import type { ApiRequest } from './request-parts.js';

// Authorization values that are never a valid key: none, other schemes, malformed keys, and keys
// one character off the valid one.
// Built once: fast-check's stringMatching takes milliseconds to build.
const token68 = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,40}=*$/);
const scheme = fc.stringMatching(/^[A-Za-z]{1,10}$/);
export function badAuthorization(apiKey: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      '',
      'Bearer',
      'Bearer ',
      `Basic ${apiKey}`,
      `Token ${apiKey}`,
      apiKey,
      `Bearer ${apiKey}x`,
      `Bearer ${apiKey.slice(0, -1)}`,
      `Bearer "${apiKey}"`,
    ),
    token68.filter((token) => token !== apiKey).map((token) => `Bearer ${token}`),
    fc
      .tuple(
        scheme.filter((name) => name.toLowerCase() !== 'bearer'),
        token68,
      )
      .map(([name, token]) => `${name} ${token}`),
  );
}

export function unauthorized(request: ApiRequest, authorization: string | undefined): ApiRequest {
  const { authorization: _valid, ...headers } = request.headers;
  return { ...request, headers: authorization === undefined ? headers : { ...headers, authorization } };
}
