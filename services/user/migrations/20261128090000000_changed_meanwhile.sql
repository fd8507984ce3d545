-- Up Migration
-- A usage batch that needs no transaction of its own commits as one statement that writes only
-- if nothing it read has changed meanwhile (store/credit-writes.ts). When something has, the
-- statement calls this: it fails with a serialization failure's code, and with it every row the
-- statement wrote is rolled back. VOLATILE (the default), so that it is called only for the rows
-- that reach it, never folded while the statement is planned.
CREATE FUNCTION raise_changed_meanwhile(what text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'changed since it was read: %', what USING ERRCODE = '40001';
END;
$$;

-- Down Migration
DROP FUNCTION raise_changed_meanwhile(text);
