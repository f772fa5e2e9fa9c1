// What a live run of the contract checks (live-checks.ts) takes and gives: its options, the sender
// it sends through, and the counts and results the runners print.
import type { ContractViolation, NamedProperty } from './response-checks.js';
import type { Contract } from './document-contract.js';
import type { ContractPlugin, ReadBack } from './plugin.js';
export type { LiveResponse, LiveSender } from './sender.js';
import type { SpecLink } from './spec-links.js';

/** What a run removed of what it created, at its end (cleanup.ts). */
export interface Cleanup {
  /** Objects deleted. */
  removed: number;
  /** What could not be deleted, each request with the status it got. */
  failures: string[];
}

export interface LiveOptions {
  /** Only operations of safe methods (GET, HEAD, OPTIONS): nothing is created or changed, safe against production. */
  readOnly: boolean;
  /** Marks the names of what this run writes. */
  runId: string;
  /** Pages read at most per walk of a paginated operation (the plug-in's read-backs). */
  maxPages: number;
  /** The document whose clients the checks stand for: openapi.yaml's, or a released version's. */
  contract: Contract;
  /** The key the requests carry, which the target accepts. */
  apiKey: string;
  /**
   * Checks as a client of a released version sees the service (npm run compat): a request that
   * version refuses may now be accepted, if the response reads as the version says; the operations
   * in `retired`, past the sunset that version announced, may respond with 410 (or 404 or 405, once
   * removed from the spec) to anything; those in `notSent` (experimental in that version) are not
   * sent at all; and `links` are followed besides the version's own (a version released before the
   * spec wrote a link down still has the ids its operations respond).
   */
  released?: { retired: ReadonlySet<string>; notSent?: ReadonlySet<string>; links?: readonly SpecLink[] };
  /**
   * The time of the service's clock (Date.now unless told). Without `released`, an operation the
   * plug-in says is retired at that time may respond with the documented 410 to a valid request, and is
   * not held to a 2xx.
   */
  clock?: () => number;
  /** What only the project's API knows (plugin.ts); without one, only the generic checks run. */
  plugin?: ContractPlugin | undefined;
}

/** What the ownership check found of one operation (owner-checks.ts). */
export interface OwnerOutcome {
  operationId: string;
  /**
   * checked: the other key got the documented 404 for each object (or a list without them); held:
   * the other key lacks the operation's role (403), nothing checked; unreached: the run made no
   * object this operation names.
   */
  result: 'checked' | 'held' | 'unreached' | 'violated';
  /** How many of the run's objects were tried (a list: how many it was searched for). */
  objects: number;
  violation?: ContractViolation;
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
  /** The generic checks, and the plug-in's (each named with it). */
  properties: NamedProperty[];
  /**
   * Sends more valid requests (following links first) to every operation that has not yet had a 2xx
   * from one, then returns the operations still without one, each with why. `unreached` are those
   * whose path names a resource only a link gives, when every operation a link comes from served
   * 2xx without naming one: the target holds none (a list served empty), and no operation of the
   * document makes one. Reported, not failed; `without a response` fails the run.
   */
  coverage(seed: number): Promise<{ withNo2xx: string[]; unreached: string[] }>;
  /**
   * With the key of another client, once the properties ran: none of the objects this run made of a
   * schema the document marks owned (`x-owner`) is reached or listed (owner-checks.ts).
   */
  ownership(otherKey: string, seed: number): Promise<OwnerOutcome[]>;
  /** What each operation was sent so far. */
  counts(): OperationCount[];
  /** The plug-in's checks of what the run wrote, made after the properties (none without a plug-in). */
  readBacks: ReadBack[];
  /**
   * Last: deletes what the run created that a link from a write's answer leads a DELETE operation
   * to (cleanup.ts); how many, and what could not be.
   */
  cleanup(seed: number): Promise<Cleanup>;
  /** Valid requests of unsafe methods that got a 2xx: what the run wrote, its names beginning with namePrefix. */
  writes(): number;
}
