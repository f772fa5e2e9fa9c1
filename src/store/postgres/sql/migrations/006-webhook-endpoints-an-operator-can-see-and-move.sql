-- How each endpoint's last attempt went (listWebhookEndpoints), and a count of the positions
-- an operator set (setWebhookPosition): a delivery under way records its outcome only if the
-- count is still the one it started with, so it never moves a position set meanwhile back.
ALTER TABLE webhook_endpoints
  ADD COLUMN generation integer NOT NULL DEFAULT 0,
  ADD COLUMN last_attempt_at timestamptz,
  ADD COLUMN last_event bigint,
  ADD COLUMN last_status integer,
  ADD COLUMN last_error text;
