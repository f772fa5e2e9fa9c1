// The hook through which a project hands the engine what only its API knows: which operations are
// retired when (a sunset calendar), its query parameters a document cannot describe (cursors, long
// polls), checks of a
// response beyond its schemas (a model of the store), more properties, and what a run reads back
// after it wrote. The engine runs every generic check without one; each check a plug-in adds
// names the plug-in in the run's output.
import type { responseChecks, NamedProperty } from './response-checks.js';
import type { ErrorVocabulary, QueryKnowledge, RequestGenerators, ValidRequest } from './api-requests.js';
import type { Contract } from './document-contract.js';
import type { LiveResponse, LiveSender } from './sender.js';
import type { Operation } from './openapi-document.js';

/** What a plug-in's checks can use of a run. */
export interface RunContext {
  contract: Contract;
  /** Sends a request as the run does: counted, a retired operation's or a limit's response ending the check. */
  sender: LiveSender;
  checks: ReturnType<typeof responseChecks>;
  generators: RequestGenerators;
  runId: string;
  apiKey: string;
  readOnly: boolean;
  /** Pages read at most per walk of a paginated operation. */
  maxPages: number;
  /** Whether the run sends requests of this operation. */
  has(operationId: string): boolean;
  /** The valid request with this run's name prefix in its body's `name`, so that what it writes is findable. */
  marked(valid: ValidRequest): ValidRequest;
  /** Sends a valid request of `operationId`, counted as one. */
  sendValid(operationId: string, request: ValidRequest['request']): Promise<LiveResponse>;
  /** Counts a 2xx to a valid request of `operationId` that the plug-in checked. */
  succeeded(operationId: string): void;
  /** Whether a request of this run changed what this value (an id) names, since it was written. */
  touched(value: string): boolean;
  /** Runs a check; a retired operation's response or a limit's ends it without a failure. */
  ignoringRetiredOrLimited<T extends unknown[]>(check: (...args: T) => Promise<void>): (...args: T) => Promise<void>;
}

/** A check made after the run's properties, on what the run wrote. */
export interface ReadBack {
  name: string;
  /** Before the run writes anything (where a feed ends now); a failure fails this check. */
  prepare?(): Promise<void>;
  /** The check; undefined when there was nothing to check (no outcome is reported). */
  check(): Promise<{ note?: string } | undefined>;
}

export interface ContractPlugin {
  /** Named in the output beside each check the plug-in adds. */
  name: string;
  /** Whether `operation` is retired at `now` (past a sunset, in a brownout): it may then respond with 410. */
  retired?(operation: Operation, now: number): boolean;
  /** What the document cannot say of the API's query parameters: cursors, long polls. */
  query?: QueryKnowledge;
  /** How the API words each rejection the engine provokes: its code, and what its message says. */
  errors?: ErrorVocabulary;
  /** Checks of a valid request's 2xx (or documented 404) respond, after the generic ones. */
  afterValid?(context: RunContext, valid: ValidRequest, response: LiveResponse): void | Promise<void>;
  /** Properties of the plug-in's own. */
  properties?(context: RunContext): NamedProperty[];
  /** Checks of what the run wrote, after its properties. */
  readBacks?(context: RunContext): ReadBack[];
}
