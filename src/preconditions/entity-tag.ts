// Entity tags (RFC 9110, 8.8.3) and If-Match (13.1.1). A pet's tag is its version, quoted: strong,
// and different after every change. Clients are told it is opaque, so its form may change. If-Match's
// syntax is checked by its schema in openapi.yaml before a handler runs; this reads a value that passed.
import { PreconditionRequired } from '../errors/api-errors.js';
import type { Precondition } from '../store/pet-store.js';

export function entityTagOf(version: number): string {
  return `"${version}"`;
}

/** Pet-ETags: the tag of each pet of a page, in its order. */
export function entityTagsOf(versions: readonly number[]): string {
  return versions.map(entityTagOf).join(', ');
}

const OUR_TAG = /^"([1-9][0-9]{0,14})"$/;

/**
 * The versions an If-Match value allows, or '*'. A weak tag never matches (If-Match compares
 * strongly), nor does a tag this service never issues: either leaves no version, so the change
 * fails its precondition (412) if the pet exists. Without If-Match: 428.
 */
export function preconditionOf(header: string | undefined): Precondition {
  if (header === undefined) throw new PreconditionRequired();
  if (header.trim() === '*') return '*';
  const versions: number[] = [];
  for (const tag of header.split(',')) {
    const version = OUR_TAG.exec(tag.trim())?.[1];
    if (version !== undefined) versions.push(Number(version));
  }
  return versions;
}
