// What a live run of the contract checks (live-checks.ts) takes and gives: its options, the sender
// it sends through, and the counts and results the runners print.
import type { Answer, NamedProperty, Sender } from './answer-checks.js';
import type { ApiRequest } from './api-requests.js';
import type { Contract } from './document-contract.js';
import type { SpecLink } from './spec-links.js';

export interface LiveOptions {
  /** Only operations of safe methods (GET, HEAD, OPTIONS): nothing is created or changed, safe against production. */
  readOnly: boolean;
  /** Marks the names of the pets this run creates. */
  runId: string;
  /** Pages read at most per walk when reading created pets back through listPets. */
  maxPages: number;
  /** The document whose clients the checks stand for: openapi.yaml's, or a released version's. */
  contract: Contract;
  /** The key the requests carry, which the target accepts. */
  apiKey: string;
  /**
   * Checks as a client of a released version sees the service (npm run compat): a request that
   * version refuses may now be accepted, if the answer reads as the version says; the operations
   * in `retired`, past the sunset that version announced, may answer 410 (or 404 or 405, once
   * removed from the spec) to anything; those in `unheld` (experimental in that version) are not
   * sent at all; and `links` are followed besides the version's own (a version released before the
   * spec wrote a link down still has the ids its operations answer).
   */
  released?: { retired: ReadonlySet<string>; unheld?: ReadonlySet<string>; links?: readonly SpecLink[] };
  /**
   * The time of the service's clock (Date.now unless told). Without `released`, an operation of the
   * contract inside one of its brownout windows or past its sunset may answer the documented 410
   * OPERATION_GONE to a valid request, and is not held to a 2xx.
   */
  clock?: () => number;
}

/** An answer over HTTP, with the URL it came from (next links resolve against it). */
export interface LiveAnswer extends Answer {
  url: string;
}

export interface LiveSender extends Sender {
  send(request: ApiRequest): Promise<LiveAnswer>;
}

export interface CreatedPet {
  request: ApiRequest;
  answer: LiveAnswer;
  pet: Record<string, unknown>;
}

/** What one operation was sent, for the per-operation counts that the runners print. */
export interface OperationCount {
  operationId: string;
  method: string;
  path: string;
  /** Every request, valid or not. */
  sent: number;
  /** Valid requests, and how many of them got a 2xx. */
  valid: number;
  succeeded: number;
  /** Statuses the valid requests got, by status. */
  statuses: Map<number, number>;
  /** Why no valid request could be made for it, if none could. */
  unmade?: string;
}

/** The name prefix of this run's pets; what follows it is the generated name, cut to fit. */
export const namePrefix = (runId: string) => `contract-check ${runId} `;

export interface LiveChecks {
  properties: NamedProperty[];
  /**
   * Sends more valid requests (following links first) to every operation that has not yet had a 2xx
   * from one, then returns the operations still without one, each with why.
   */
  coverage(seed: number): Promise<{ unanswered: string[] }>;
  /** What each operation was sent so far. */
  counts(): OperationCount[];
  /** Reads every pet this run created back, through getPet and through listPets' pages; how many, and any note. */
  readBack(): Promise<{ pets: number; note?: string }>;
  created(): readonly CreatedPet[];
  /**
   * Notes where the change feed ends now (when the contract has listPetEvents and the run writes), so that readFeed
   * reads what came after.
   */
  markFeed(): Promise<void>;
  /**
   * Reads the feed from where markFeed left it: every pet this run created has one pet.created
   * event holding the pet as answered, and each of its events' versions run 1, 2, 3… in order.
   */
  readFeed(): Promise<{ events: number; note?: string }>;
}
