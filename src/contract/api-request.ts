// One request as the contract engine sends it: its own module, so that the request generators
// (api-requests.ts) and the requests without a valid key (bad-keys.ts) need not import each other.

export interface ApiRequest {
  operationId: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}
