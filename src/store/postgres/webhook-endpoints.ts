// The webhook endpoints added through the API, in api_webhook_endpoints: every instance reads them
// (src/webhooks/api-endpoints.ts) and delivers to them. Secrets are kept as they are given to the
// receivers (docs/decisions.md, "Webhook secrets at rest").
import type { PetEventType } from '../pet-store.js';
import {
  apiEndpointKey,
  type EndpointFields,
  type EndpointSecret,
  type StoredEndpoint,
  type WebhookEndpointStore,
} from '../webhook-endpoint-store.js';
import { statementsOf } from './sql-files.js';
import type { Statements } from './statement.js';

export const ENDPOINT_STATEMENTS = statementsOf('webhook-endpoints', {
  addEndpoint: 'add-endpoint',
  getEndpoint: 'get-endpoint',
  listEndpoints: 'list-endpoints',
  replaceEndpoint: 'replace-endpoint',
  removeEndpoint: 'remove-endpoint',
});

interface EndpointRow {
  id: string;
  url: string;
  event_types: PetEventType[] | null;
  description: string | null;
  disabled: boolean;
  secrets: EndpointSecret[];
  version: number;
  created_at: Date;
}

const endpointOf = (row: EndpointRow): StoredEndpoint => ({
  id: row.id,
  url: row.url,
  events: row.event_types,
  description: row.description,
  disabled: row.disabled,
  secrets: row.secrets,
  version: row.version,
  createdAt: row.created_at.getTime(),
});

const fieldValues = ({ url, events, description, disabled, secrets }: EndpointFields) => [
  url,
  events,
  description,
  disabled,
  JSON.stringify(secrets),
];

export function createWebhookEndpoints(statements: Statements): WebhookEndpointStore {
  const { addEndpoint, getEndpoint, listEndpoints, replaceEndpoint, removeEndpoint } = ENDPOINT_STATEMENTS;
  const changedOf = (row: EndpointRow & { changed: boolean }) => ({ changed: row.changed, endpoint: endpointOf(row) });
  return {
    async add(id, fields) {
      const [added] = await statements.rows(addEndpoint, [id, ...fieldValues(fields)], endpointOf);
      return added!;
    },
    async get(id) {
      const [found] = await statements.rows(getEndpoint, [id], endpointOf);
      return found ?? null;
    },
    list: () => statements.rows(listEndpoints, [], endpointOf),
    async replace(id, version, fields) {
      const [row] = await statements.rows(replaceEndpoint, [id, version, ...fieldValues(fields)], changedOf);
      if (row === undefined) return null;
      return row.changed ? row.endpoint : { current: row.endpoint };
    },
    async remove(id, version) {
      const [row] = await statements.rows(removeEndpoint, [id, version, apiEndpointKey(id)], changedOf);
      if (row === undefined) return null;
      return row.changed ? true : { current: row.endpoint };
    },
  };
}
