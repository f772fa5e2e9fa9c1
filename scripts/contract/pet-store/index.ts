// petstore-contract-plugin: what only the Pet Store API promises, for the contract engine
// (openapi-contract-engine): its cursors, its sunset calendar, its paging rule and its read-backs.
export { PET_STORE_ERRORS, PET_STORE_QUERY, petStorePlugin } from './plugin.js';
export { clockBeforeSunsets, retiredAt } from './calendar.js';
export { CURSOR } from './cursors.js';
export { keptNextPage } from './next-page.js';
