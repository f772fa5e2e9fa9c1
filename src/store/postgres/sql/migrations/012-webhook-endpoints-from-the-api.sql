-- Webhook endpoints an operator adds through the API (createWebhookEndpoint), delivered to by
-- every instance. Their deliveries stand in webhook_endpoints, keyed 'api:' and the id; the
-- file's are keyed by their entry's id (they were keyed by URL before this version: an entry
-- takes its URL's row over when first claimed).
CREATE TABLE api_webhook_endpoints (
  id text PRIMARY KEY,
  url text NOT NULL,
  -- Null: every type.
  event_types text[],
  description text,
  disabled boolean NOT NULL DEFAULT false,
  -- Newest first: [{"secret": "whsec_…", "expiresAt": <Unix ms> | null}], as docs/decisions.md says.
  secrets jsonb NOT NULL,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- The types an endpoint takes (null: every one), as its deliverer last claimed it, and how many
-- events of them it passed over unaccepted: past retention, or skipped by setWebhookPosition.
ALTER TABLE webhook_endpoints
  ADD COLUMN event_types text[],
  ADD COLUMN skipped bigint NOT NULL DEFAULT 0;
-- Every attempt at a delivery (listWebhookDeliveries), purged with its event.
CREATE TABLE webhook_attempts (
  n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  endpoint text NOT NULL,
  event bigint NOT NULL,
  attempted_at timestamptz NOT NULL,
  status integer,
  result text NOT NULL,
  duration_ms integer NOT NULL,
  error text,
  resend boolean NOT NULL DEFAULT false
);
CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (endpoint, n);
CREATE INDEX webhook_attempts_by_event ON webhook_attempts (endpoint, event, n);
CREATE INDEX webhook_attempts_by_seq ON webhook_attempts (event);
-- Events an operator asked to send once more (resendWebhookEvent): the endpoint's deliverer sends
-- each, then deletes it.
CREATE TABLE webhook_resends (
  n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  endpoint text NOT NULL,
  event bigint NOT NULL
);
CREATE INDEX webhook_resends_by_endpoint ON webhook_resends (endpoint, n);
