// openapi.yaml's request generators (src/contract/api-requests.ts), signed with the tests' key, with
// what the Pet Store's plug-in knows of its query (its cursor, its long poll).
import { requestGenerators } from 'openapi-contract-engine';
import { PET_STORE_QUERY } from 'petstore-contract-plugin';
import { API_KEY } from './build-app.js';
import { current } from './contract.js';

export { inHeader, unauthorized, type ApiRequest, type ValidRequest } from 'openapi-contract-engine';
export const { patternOf, validHeaderValue, validRequest, brokenRequest, requestsOf, relinked } = requestGenerators(
  current,
  API_KEY,
  PET_STORE_QUERY,
);
