-- What an order function returns is an order_result, built by to_order_result()
-- (functions/orders.sql); version 7 named them order_answer and answer_of().
ALTER TYPE order_answer RENAME TO order_result;
DROP FUNCTION IF EXISTS answer_of(text, text, orders);
