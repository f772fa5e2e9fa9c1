// Entity tags (RFC 9110, 8.8.3) and If-Match (13.1.1). A strong validator must be unique across
// every state of its resource over time, so a tag names one pet (or webhook endpoint of the API),
// one version of it, and the store's epoch: the name a restored, recreated or restarted store does
// not share (docs/events.md). A tag issued for another object, or by the store before a restore,
// matches nothing (412). Clients are told
// it is opaque: its form is ours to change. If-Match's syntax is checked by its schema in openapi.yaml
// before a handler runs; this reads a value that passed.
import { PreconditionRequired } from '../errors/api-errors.js';
import type { Precondition } from '../store/pet-store.js';
import type { PetId } from '../types/api.js';

/** What a tag names: a pet by its id, or a webhook endpoint by its (`ep_…`, never all digits). */
type TaggedId = PetId | string;

/**
 * 32 bits of FNV-1a over the epoch, the pet's id and its version: what ties a tag to them. Not a
 * secret (a caller may send `*` anyway); what matters is that a tag misapplied to another pet, or
 * carried over a restore, does not match, and FNV does that for a few tens of nanoseconds where a
 * cryptographic hash costs a microsecond, which a page of 100 tags would pay 100 times.
 */
function checkOf(epoch: string, id: TaggedId, version: number): string {
  return checkFrom(epochHash(epoch), id, version);
}

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a's state after `text`, from `hash`. */
function fnv(hash: number, text: string): number {
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash;
}

/** The hash's state after `<epoch>:`, where every tag of the epoch starts: made once per page. */
const epochHash = (epoch: string) => fnv(FNV_OFFSET, `${epoch}:`);

// Eight hex digits from four bytes: toString(16) of a 32-bit hash above 2^31 (half of them) goes
// through V8's double-to-radix conversion, about 850 instructions a tag on a page of 20.
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const checkFrom = (start: number, id: TaggedId, version: number) => {
  const hash = fnv(start, `${id}:${version}`);
  return HEX[hash >>> 24]! + HEX[(hash >>> 16) & 0xff]! + HEX[(hash >>> 8) & 0xff]! + HEX[hash & 0xff]!;
};

/** A tag's form: its version and its check. */
const tagFrom = (start: number, id: TaggedId, version: number) => `"${version}-${checkFrom(start, id, version)}"`;

export function entityTagOf(epoch: string, id: TaggedId, version: number): string {
  return tagFrom(epochHash(epoch), id, version);
}

/** Pet-ETags: the tag of each pet of a page, in its order. */
export function entityTagsOf(epoch: string, pets: readonly { id: PetId }[], versions: readonly number[]): string {
  const start = epochHash(epoch);
  let tags = '';
  for (let index = 0; index < versions.length; index++)
    tags += `${index === 0 ? '' : ', '}${tagFrom(start, pets[index]!.id, versions[index]!)}`;
  return tags;
}

const OUR_TAG = /^"([1-9][0-9]{0,14})-([0-9a-f]{8})"$/;

/**
 * The versions of object `id` an If-Match value allows, or '*'. A weak tag never matches (If-Match
 * compares strongly), nor does a tag this store never issued for this object: either leaves no version,
 * so the change fails its precondition (412) if the object exists. Without If-Match: 428.
 */
export function preconditionOf(header: string | undefined, epoch: string, id: TaggedId): Precondition {
  if (header === undefined) throw new PreconditionRequired();
  if (header.trim() === '*') return '*';
  const versions: number[] = [];
  for (const tag of header.split(',')) {
    const [, digits, check] = OUR_TAG.exec(tag.trim()) ?? [];
    if (digits === undefined) continue;
    const version = Number(digits);
    if (check === checkOf(epoch, id, version)) versions.push(version);
  }
  return versions;
}
