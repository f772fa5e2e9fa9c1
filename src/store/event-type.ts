/** The kinds of change the feed records, one event per change. */
export type PetEventType = 'pet.created' | 'pet.updated' | 'pet.deleted';
