// Compiled by `npm run typecheck` (never run): proves that the handler types follow openapi.yaml.
import type { OperationHandler, OperationHandlers } from '../../src/types/api.js';

const listPets: OperationHandler<'listPets'> = async () => [];
const createPet: OperationHandler<'createPet'> = async (request) => ({ id: 1, ...request.body });
const getPet: OperationHandler<'getPet'> = async (request) => ({ id: request.params.petId, name: 'Rex', categoryId: 1 });

export const complete: OperationHandlers = { listPets, createPet, getPet };

// @ts-expect-error an operation of the spec without a handler
export const missing: OperationHandlers = { listPets, createPet };

// @ts-expect-error a handler for an operationId the spec does not have
export const extra: OperationHandlers = { listPets, createPet, getPet, deletePet: getPet };

// @ts-expect-error a body the spec does not allow: id must be an integer
export const wrongType: OperationHandler<'getPet'> = async () => ({ id: '1', name: 'Rex', categoryId: 1 });

// @ts-expect-error a body the spec does not allow: name is required
export const missingField: OperationHandler<'createPet'> = async () => ({ id: 1, categoryId: 1 });

// @ts-expect-error a status the spec does not list
export const wrongStatus: OperationHandler<'createPet'> = async () => ({ id: 1, name: 'Rex', categoryId: 1, status: 'lost' });

// @ts-expect-error listPets answers an array, not one pet
export const notAList: OperationHandler<'listPets'> = async () => ({ id: 1, name: 'Rex', categoryId: 1 });
