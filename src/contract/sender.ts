// What a live run sends through: any target that answers a request, over HTTP or in-process.
import type { Answer, Sender } from './answer-checks.js';
import type { ApiRequest } from './api-requests.js';

/** An answer over HTTP, with the URL it came from (next links resolve against it). */
export interface LiveAnswer extends Answer {
  url: string;
}

export interface LiveSender extends Sender {
  send(request: ApiRequest): Promise<LiveAnswer>;
}
