-- An order as it reads at `at`: a placed order whose expires_at has come reads as expired, and as
-- closed when it expired, from that moment, whether or not the sweep (expire_orders) has closed it
-- yet. The reads pass the statement's time; the functions that move an order, the clock's.
CREATE OR REPLACE FUNCTION order_status_at(status text, expires_at timestamptz, at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN status = 'placed' AND expires_at <= at THEN 'expired' ELSE status END
$fn$;
CREATE OR REPLACE FUNCTION order_closed_at(status text, expires_at timestamptz, closed_at timestamptz,
  at timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN status = 'placed' AND expires_at <= at THEN expires_at ELSE closed_at END
$fn$;
