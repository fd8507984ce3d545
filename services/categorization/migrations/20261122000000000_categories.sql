-- Up Migration
-- The categorization service owns every table here. IAB rows are imported at run time from the
-- IAB Tech Lab Content Taxonomy TSV (never committed); CUS rows are created by the operator.

CREATE TABLE categories (
  -- 'IAB-<n>' or 'CUS-<n>'
  id text PRIMARY KEY,
  source text NOT NULL CHECK (source IN ('IAB', 'CUS')),
  num integer NOT NULL CHECK (num > 0),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  -- The name folded to lower case by the service (Unicode-aware, independent of the database
  -- locale): sibling names are unique case-insensitively (CONTRACT §9).
  name_key text NOT NULL,
  -- Deferrable so that an import may insert children before parents and swap names.
  parent_id text REFERENCES categories (id) DEFERRABLE INITIALLY IMMEDIATE,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT categories_id_shape CHECK (id = source || '-' || num),
  CONSTRAINT categories_not_own_parent CHECK (parent_id IS DISTINCT FROM id),
  CONSTRAINT categories_sibling_name UNIQUE NULLS NOT DISTINCT (parent_id, name_key) DEFERRABLE INITIALLY IMMEDIATE
);

-- CUS-<n> numbers; never reused after a delete.
CREATE SEQUENCE custom_category_number AS integer START 1;

-- One row. Every change of the categories (import, create, delete) bumps version in the same
-- transaction; replicas poll it and rebuild their in-memory lists when it moves. Writers lock
-- this row first, which serializes them.
CREATE TABLE category_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version bigint NOT NULL DEFAULT 1,
  changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO category_state DEFAULT VALUES;

-- Down Migration
DROP TABLE category_state;
DROP SEQUENCE custom_category_number;
DROP TABLE categories;
