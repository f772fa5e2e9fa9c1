// Compiled by `npm run build` (never run): proves that the handler types follow openapi.yaml.
import type { EveryHandler, HandlerFileOf, OperationHandler, OperationHandlers } from '../../src/types/api.js';

const listPets: OperationHandler<'listPets'> = async () => [];
const createPet: OperationHandler<'createPet'> = async (request) => ({ id: 1, ...request.body });
const getPet: OperationHandler<'getPet'> = async (request) => ({
  id: request.params.petId,
  name: 'Rex',
  categoryId: 1,
});

// Whatever operations the spec has beyond these three (a team adds its own): never spelt out here.
declare const all: OperationHandlers;
export const complete: OperationHandlers = { ...all, listPets, createPet, getPet };

// @ts-expect-error an operation of the spec without a handler
export const missing: OperationHandlers = { ...({} as Omit<OperationHandlers, 'getPet'>) };

// @ts-expect-error a handler for an operationId the spec does not have
export const extra: OperationHandlers = { ...all, deletePet: getPet };

// @ts-expect-error a body the spec does not allow: id must be an integer
export const wrongType: OperationHandler<'getPet'> = async () => ({ id: '1', name: 'Rex', categoryId: 1 });

// @ts-expect-error a body the spec does not allow: name is required
export const missingField: OperationHandler<'createPet'> = async () => ({ id: 1, categoryId: 1 });

// @ts-expect-error a status the spec does not list
export const wrongStatus: OperationHandler<'createPet'> = async () => ({
  id: 1,
  name: 'Rex',
  categoryId: 1,
  status: 'lost',
});

// @ts-expect-error listPets returns an array, not one pet
export const notAList: OperationHandler<'listPets'> = async () => ({ id: 1, name: 'Rex', categoryId: 1 });

// What the compiler says of an operation without a handler (src/handlers/index.ts): its operationId and the file to
// write.
type WithoutGetPet = Omit<OperationHandlers, 'getPet'>;
export const named: EveryHandler<WithoutGetPet> =
  'openapi.yaml has getPet without a handler: write src/handlers/get-pet.ts and add it to src/handlers/index.ts';
export const allThere: EveryHandler<OperationHandlers> = complete;
// @ts-expect-error with a handler missing, the handlers themselves do not fit
export const notAll: EveryHandler<WithoutGetPet> = { ...({} as WithoutGetPet) };
export const file: HandlerFileOf<'updatePetStatus'> = 'src/handlers/update-pet-status.ts';
// @ts-expect-error the file is spelt in kebab case
export const camelFile: HandlerFileOf<'updatePet'> = 'src/handlers/updatePet.ts';

// Handlers are written with `satisfies`, so that the response's own type reaches EveryHandler: a field
// the spec does not define for the response is a compile error naming it, not a field the serializer drops.
const listWithOwner = (async () => [
  { id: 1, name: 'Rex', categoryId: 1, owner: 'Ann' },
]) satisfies OperationHandler<'listPets'>;
type ListingOwners = Omit<OperationHandlers, 'listPets'> & { listPets: typeof listWithOwner };
export const undeclared: EveryHandler<ListingOwners> =
  'listPets returns owner, which openapi.yaml does not define for it: take it out of src/handlers/list-pets.ts, or add it to the spec';
// @ts-expect-error with an undeclared field, the handlers themselves do not fit
export const withOwner: EveryHandler<ListingOwners> = { ...all, listPets: listWithOwner };
const exactList = (async () => [
  { id: 1, name: 'Rex', categoryId: 1, status: 'sold' as const },
]) satisfies OperationHandler<'listPets'>;
export const exact: EveryHandler<Omit<OperationHandlers, 'listPets'> & { listPets: typeof exactList }> = {
  ...all,
  listPets: exactList,
};
