// What a live run sends through: any target that responds to a request, over HTTP or in-process.
import type { ApiResponse, Sender } from './response-checks.js';
import type { ApiRequest } from './api-requests.js';

/** A response over HTTP, with the URL it came from (next links resolve against it). */
export interface LiveResponse extends ApiResponse {
  url: string;
}

export interface LiveSender extends Sender {
  send(request: ApiRequest): Promise<LiveResponse>;
}
